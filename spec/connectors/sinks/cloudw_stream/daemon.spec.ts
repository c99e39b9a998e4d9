/**
 * `cloudw_stream` in the daemon: the example config (config/examples, shown on docs/components/cloudw_stream.md) with a
 * disk_v1 buffer runs against kinesalite behind the strict front, with credentials from the
 * CLOUDW_* variables; without credentials `--require-healthy` stops it and says what was tried.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { repoRoot, runWeir } from '../../../helpers/weir-process.js';
import { type KinesisFront, type Kinesalite, startKinesalite, startKinesisFront } from '../../../peers/kinesis-front.js';
import { FRONT_KEYS } from './harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-cloudw-stream-daemon-'));
const example = readFileSync(join(repoRoot, 'config/examples/cloudw_stream.toml'), 'utf8');
const creds = { CLOUDW_ACCESS_KEY_ID: FRONT_KEYS[0]!.accessKeyId, CLOUDW_SECRET_ACCESS_KEY: FRONT_KEYS[0]!.secretAccessKey };

describe('connectors/sinks/cloudw_stream: the daemon with the example config', function () {
  this.timeout(60_000);
  let kinesis: Kinesalite;
  let front: KinesisFront;
  before(async () => {
    kinesis = await startKinesalite();
    front = await startKinesisFront(kinesis.url, FRONT_KEYS);
    await kinesis.createStream('weir-events', 2);
  });
  after(async () => {
    await front.close();
    await kinesis.close();
  });

  const config = (name: string) => {
    const file = join(tmp, `${name}.toml`);
    writeFileSync(file, `data_dir = "${join(tmp, name)}"\n` + example.replace('region = "eu-west-1"', `region = "eu-west-1"\nendpoint = "${front.url}"`));
    return file;
  };

  it('stdin -> cloudw_stream (disk_v1): every line stored once, gzipped, keyed by host; clean exit, nothing lost', async () => {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(tmp, 'ok'), { recursive: true });
    const lines = Array.from({ length: 120 }, (_, i) => `line ${i}`);
    const r = await runWeir(['--config', config('ok'), '--require-healthy'], { env: creds, input: lines.join('\n') + '\n' });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.include('0 events lost');
    const stored = await kinesis.readAll('weir-events');
    const events = stored.map((s) => JSON.parse(gunzipSync(s.data).toString()) as { message: string; host: string });
    expect(events.map((e) => e.message).sort()).to.deep.equal([...lines].sort());
    expect(new Set(stored.map((s) => s.partitionKey))).to.deep.equal(new Set([hostname()]));
    expect(front.requests[0]!.headers['x-amz-target']).to.equal('Kinesis_20131202.DescribeStream');
  });

  it('no credentials anywhere: --require-healthy exits non-zero and names every source tried', async () => {
    const env: NodeJS.ProcessEnv = { HOME: tmp, CLOUDW_EC2_METADATA_DISABLED: 'true' };
    for (const k of Object.keys(process.env)) if (/^(AWS|CLOUDW)_/.test(k)) env[k] = '';
    const r = await runWeir(['--config', config('none'), '--require-healthy'], { env, input: 'x\n' });
    expect(r.code).to.not.equal(0);
    expect(r.stderr).to.include('no credentials; tried:').and.include('CLOUDW_ACCESS_KEY_ID').and.include('shared credentials file');
  });
});
