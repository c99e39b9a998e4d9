import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWeir } from '../../../helpers/weir-process.js';
import { type LokiPeer, startLoki } from '../../../peers/loki.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-labelstore-daemon-'));

describe('connectors/sinks/labelstore: the daemon (compiled CLI)', function () {
  this.timeout(60_000);
  let loki: LokiPeer;
  afterEach(() => loki.close());

  const config = (name: string, url: string) => {
    const file = join(tmp, `${name}.toml`);
    writeFileSync(
      file,
      [
        '[sources.in]',
        'type = "stdin"',
        '[sinks.store]',
        'type = "labelstore"',
        'inputs = ["in"]',
        `endpoint = "${url}"`,
        'encoding.codec = "text"',
        'labels.source = "{{ source_type }}"',
        'labels.job = "daemon"',
        'tenant_id = "acme"',
        'batch.max_events = 2',
        '',
      ].join('\n'),
    );
    return file;
  };

  it('stdin -> labelstore into the strict store (before 2.4): health check, every line stored in order, clean exit', async () => {
    loki = await startLoki({ rejectOutOfOrder: true, requireTenant: true });
    const p = startWeir(['--config', config('ok', loki.url), '--require-healthy'], { input: 'one\ntwo\nthree\nfour\nfive\n' });
    const { code } = await p.exited;
    expect(code, p.stderr()).to.equal(0);
    expect(p.stderr()).to.include('0 events lost');
    expect(loki.requests[0]!.path).to.equal('/ready');
    expect(loki.entries.map((e) => [e.tenant, e.stream, e.line])).to.deep.equal(
      ['one', 'two', 'three', 'four', 'five'].map((l) => ['acme', '{job="daemon", source="stdin"}', l]),
    );
    const ts = loki.entries.map((e) => e.ts);
    expect([...ts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).to.deep.equal(ts);
  });

  it('--require-healthy exits non-zero while the store is not ready', async () => {
    loki = await startLoki({ ready: false });
    const p = startWeir(['--config', config('unready', loki.url), '--require-healthy'], { input: 'x\n' });
    const { code } = await p.exited;
    expect(code).to.equal(1);
    expect(p.stderr()).to.include('Healthcheck failed.').and.include('component_id=store').and.include('503');
  });
});
