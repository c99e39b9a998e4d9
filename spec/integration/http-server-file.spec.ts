import { expect } from 'chai';
import { mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/free-port.js';
import { until } from '../helpers/wait.js';
import { startWeir } from '../helpers/weir-process.js';

describe('http_server -> file through the daemon, acknowledgements on', function () {
  this.timeout(120_000);

  it('answers each request once its events are in the file, under Vector\'s older type name `http`', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'weir-http-server-'));
    const port = await freePort();
    const out = join(tmp, 'out.log');
    const cfg = join(tmp, 'pipe.toml');
    writeFileSync(
      cfg,
      [
        `data_dir = "${tmp}"`,
        '[sources.in]',
        'type = "http"',
        `address = "127.0.0.1:${port}"`,
        'path = "/ingest"',
        'decoding.codec = "json"',
        'query_parameters = ["app"]',
        '[sinks.out]',
        'type = "file"',
        'inputs = ["in"]',
        `path = "${out}"`,
        'encoding.codec = "json"',
        'acknowledgements.enabled = true',
        '',
      ].join('\n'),
    );
    const p = startWeir(['--config', cfg]);
    try {
      await until(() => /Listening/.test(p.stderr() + p.stdout()), 20_000, 'listening');
      const lines = () => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter((l) => l !== '') : []);
      for (let i = 0; i < 20; i++) {
        const body = Array.from({ length: 5 }, (_, j) => JSON.stringify({ n: i * 5 + j })).join('\n');
        const res = await fetch(`http://127.0.0.1:${port}/ingest?app=web`, { method: 'POST', body });
        expect(res.status).to.equal(200);
        // acknowledged: the request's last event is in the file by the time it is answered
        expect(lines().length).to.be.at.least((i + 1) * 5);
      }
      const events = lines().map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(events.map((e) => e.n)).to.deep.equal(Array.from({ length: 100 }, (_, i) => i));
      expect(events[0]).to.include({ app: 'web', path: '/ingest', source_type: 'http_server' });
      p.child.kill('SIGTERM');
      expect((await p.exited).code).to.equal(0);
      expect(p.stderr()).to.not.match(/ERROR/);
    } finally {
      p.child.kill('SIGKILL');
      await p.exited;
    }
  });
});
