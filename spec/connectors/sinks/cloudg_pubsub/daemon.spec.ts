import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../helpers/free-port.js';
import { until } from '../../../helpers/wait.js';
import { runWeir } from '../../../helpers/weir-process.js';
import { type PubsubEmulator, requirePubsubEmulator, startPubsubEmulator } from '../../../peers/pubsub-emulator.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-pubsub-daemon-'));
let n = 0;
const config = (sink: string) => {
  const file = join(tmp, `c${n++}.toml`);
  writeFileSync(file, `[sources.in]\ntype = "stdin"\n\n[sinks.out]\ntype = "cloudg_pubsub"\ninputs = ["in"]\nproject = "weir-test"\n${sink}\n`);
  return file;
};

describe('connectors/sinks/cloudg_pubsub: the daemon (stdin -> cloudg_pubsub -> emulator)', function () {
  this.timeout(120_000);
  let emu: PubsubEmulator;
  before(async function () {
    requirePubsubEmulator();
    emu = await startPubsubEmulator();
  });
  after(() => emu?.close());

  it('publishes every line exactly once, in both codecs, and exits clean at the end of input', async () => {
    for (const codec of ['json', 'text'] as const) {
      const t = await emu.topic(`daemon-${codec}`);
      const lines = Array.from({ length: 1500 }, (_, i) => `line ${i}`);
      const cfg = config(`topic = "${t.name}"\nendpoint = "${emu.url}"\napi_key = "emulator"\nencoding.codec = "${codec}"\nbatch.timeout_secs = 0.1`);
      const r = await runWeir(['--config', cfg, '--require-healthy'], { input: `${lines.join('\n')}\n`, env: { CLOUDG_APPLICATION_CREDENTIALS: '' } });
      expect(r.code, r.stderr).to.equal(0);
      await until(() => t.received.length >= 1500, 60_000, `1500 ${codec} messages`);
      const got = t.received.map((m) => (codec === 'json' ? (JSON.parse(m.data.toString()) as { message: string }).message : m.data.toString()));
      expect(got.sort()).to.deep.equal([...lines].sort());
    }
  });

  it('--require-healthy exits non-zero when the topic does not exist, saying "topic not found"', async () => {
    const cfg = config(`topic = "no-such-topic"\nendpoint = "${emu.url}"\napi_key = "emulator"\nencoding.codec = "json"`);
    const r = await runWeir(['--config', cfg, '--require-healthy'], { input: 'x\n' });
    expect(r.code).to.not.equal(0);
    expect(r.stderr).to.include('Healthcheck failed.').and.include('topic not found');
  });

  it('without any credentials the health check fails naming what was tried', async () => {
    const closed = await freePort();
    const cfg = config(`topic = "whatever"\nendpoint = "${emu.url}"\nencoding.codec = "json"`);
    const r = await runWeir(['--config', cfg, '--require-healthy'], {
      input: 'x\n',
      env: { CLOUDG_APPLICATION_CREDENTIALS: '', GOOGLE_APPLICATION_CREDENTIALS: '', CLOUDG_METADATA_HOST: '', GCE_METADATA_HOST: `127.0.0.1:${closed}` },
    });
    expect(r.code).to.not.equal(0);
    expect(r.stderr).to.include('credentials_path (unset), api_key (unset), CLOUDG_APPLICATION_CREDENTIALS (unset)').and.include(`metadata server 127.0.0.1:${closed}`);
  });
});
