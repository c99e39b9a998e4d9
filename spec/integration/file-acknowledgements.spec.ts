import { expect } from 'chai';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestServer, startTestServer } from '../helpers/http-test-server.js';
import { until } from '../helpers/wait.js';
import { startWeir } from '../helpers/weir-process.js';

describe('file -> http through the daemon, acknowledgements on', function () {
  this.timeout(120_000);

  it('a sink that fails, a kill -9, a restart with a healthy sink: every line arrives, once', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'weir-file-ack-'));
    let healthy = false;
    const server: TestServer = await startTestServer(() => (healthy ? 200 : 503));
    try {
      mkdirSync(join(tmp, 'logs'));
      const log = join(tmp, 'logs', 'app.log');
      const cfg = join(tmp, 'pipe.toml');
      writeFileSync(
        cfg,
        [
          `data_dir = "${tmp}"`,
          '[sources.files]',
          'type = "file"',
          `include = ["${tmp}/logs/*.log"]`,
          'glob_minimum_cooldown_ms = 100',
          '[sinks.out]',
          'type = "http"',
          'inputs = ["files"]',
          `uri = "${server.url}"`,
          'encoding.codec = "text"',
          'healthcheck.enabled = false',
          'batch.timeout_secs = 0.1',
          'request.retry_initial_backoff_secs = 1',
          'acknowledgements.enabled = true',
          '',
        ].join('\n'),
      );
      const expected = Array.from({ length: 300 }, (_, i) => `line ${i}`);
      writeFileSync(log, `${expected.slice(0, 200).join('\n')}\n`);
      const checkpoints = join(tmp, 'files', 'checkpoints.json');
      const first = startWeir(['--config', cfg]);
      await until(() => server.requests.some((r) => r.body.includes('line 199')), 60_000, 'the lines sent, and refused with a retriable status');
      // nothing was delivered, so no position was saved past the first line
      const saved = existsSync(checkpoints) ? (JSON.parse(readFileSync(checkpoints, 'utf8')) as { checkpoints: { position: number }[] }).checkpoints : [];
      expect(saved.every((c) => c.position === 0)).to.equal(true);
      first.child.kill('SIGKILL');
      await first.exited;

      appendFileSync(log, `${expected.slice(200).join('\n')}\n`);
      healthy = true;
      const refused = server.requests.length;
      const second = startWeir(['--config', cfg]);
      const delivered = () =>
        server.requests
          .slice(refused)
          .flatMap((r) => r.body.split('\n'))
          .filter((l) => l !== '');
      try {
        await until(() => delivered().includes('line 299'), 60_000, 'every line delivered');
        await until(() => existsSync(checkpoints) && readFileSync(checkpoints, 'utf8').includes(`"position":${readFileSync(log).length}`), 30_000, 'the checkpoint at the end');
      } finally {
        second.child.kill('SIGTERM');
        await second.exited;
      }
      expect(delivered()).to.deep.equal(expected);
    } finally {
      await server.close();
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
