import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import * as v from 'valibot';
import { validateCommand } from '../../../../bin/cli/validate.js';
import { CloudwStreamSinkConfig } from '../../../../connectors/sinks/cloudw_stream/config.js';
import { cloudwStreamSink } from '../../../../connectors/sinks/cloudw_stream/index.js';
import { repoRoot } from '../../../helpers/weir-process.js';

const base = { type: 'cloudw_stream', inputs: ['in'], stream_name: 'events', region: 'eu-west-1', encoding: { codec: 'json' } };
const dir = mkdtempSync(join(tmpdir(), 'weir-cloudw-stream-validate-'));
let n = 0;

async function validateFile(file: string): Promise<{ code: number; out: string }> {
  let out = '';
  const w = new Writable({
    write(chunk, _enc, cb) {
      out += chunk;
      cb();
    },
  });
  const code = await validateCommand({ files: [file], environment: false, skipHealthchecks: true, denyWarnings: false }, w);
  return { code, out };
}
/** Runs `weir validate` on a config whose sink `out` has `sink` (TOML lines). */
function validate(sink: string) {
  const file = join(dir, `c${n++}.toml`);
  writeFileSync(file, `[sources.in]\ntype = "stdin"\n\n[sinks.out]\ntype = "cloudw_stream"\ninputs = ["in"]\n${sink}\n`);
  return validateFile(file);
}

describe('connectors/sinks/cloudw_stream: config', () => {
  it('has the documented defaults: batch 500 / 5,000,000 / 1 s, compression none, the common request defaults', () => {
    const c = v.parse(CloudwStreamSinkConfig, base);
    expect(c.batch).to.deep.equal({ max_events: 500, max_bytes: 5_000_000, timeout_secs: 1 });
    expect(c.compression).to.equal('none');
    expect(c.request).to.include({ rate_limit_duration_secs: 1, retry_initial_backoff_secs: 1, retry_max_duration_secs: 3600, timeout_secs: 60 });
    expect(c.request.adaptive_concurrency).to.include({ decrease_ratio: 0.9, ewma_alpha: 0.7, rtt_deviation_scale: 2 });
    expect(c.auth).to.deep.include({ load_timeout_secs: 5 });
    expect(c.auth.imds.max_attempts).to.equal(4);
    expect(cloudwStreamSink.aliases).to.deep.equal(['aws_kinesis_streams']);
  });

  it('allows disk_v1 buffers', () => {
    expect(v.parse(CloudwStreamSinkConfig, { ...base, buffer: { type: 'disk_v1', max_size: 268435488 } }).buffer.type).to.equal('disk_v1');
  });

  it('weir validate names a missing region (without endpoint), stream_name and encoding.codec', async () => {
    const r = await validate('stream_name = "s"\nencoding.codec = "json"');
    expect(r.code).to.equal(78);
    expect(r.out).to.match(/sinks\.out\.region: region is required when endpoint is not set/);
    const ok = await validate('stream_name = "s"\nencoding.codec = "json"\nendpoint = "http://127.0.0.1:4567"');
    expect(ok.code, ok.out).to.equal(0);
    const r2 = await validate('region = "eu-west-1"');
    expect(r2.code).to.equal(78);
    expect(r2.out).to.include('sinks.out.stream_name').and.include('sinks.out.encoding');
  });

  it('weir validate refuses batches over the service limits and codecs the sink lacks', async () => {
    const r = await validate('stream_name = "s"\nregion = "eu-west-1"\nencoding.codec = "json"\nbatch.max_events = 501\nbatch.max_bytes = 5000001');
    expect(r.code).to.equal(78);
    expect(r.out).to.match(/sinks\.out\.batch\.max_events: must be at most 500/);
    expect(r.out).to.match(/sinks\.out\.batch\.max_bytes: must be at most 5000000/);
    const c = await validate('stream_name = "s"\nregion = "eu-west-1"\nencoding.codec = "ndjson"');
    expect(c.out).to.include('sinks.out.encoding.codec');
    const z = await validate('stream_name = "s"\nregion = "eu-west-1"\nencoding.codec = "json"\ncompression = "zstd"');
    expect(z.out).to.include('sinks.out.compression');
  });

  it('weir validate names auth options without their partner, and a bad partition_key_field', async () => {
    const r = await validate('stream_name = "s"\nregion = "eu-west-1"\nencoding.codec = "json"\nauth.access_key_id = "AK"\npartition_key_field = "a..b"');
    expect(r.code).to.equal(78);
    expect(r.out).to.match(/sinks\.out\.auth\.access_key_id: access_key_id requires secret_access_key/);
    expect(r.out).to.include('sinks.out.partition_key_field');
  });

  it('the example config validates, and docs/components/cloudw_stream.md shows its sink as it is', async () => {
    const file = join(repoRoot, 'config/examples/cloudw_stream.toml');
    const r = await validateFile(file);
    expect(r.code, r.out).to.equal(0);
    const example = readFileSync(file, 'utf8');
    const readme = readFileSync(join(repoRoot, 'docs/components/cloudw_stream.md'), 'utf8');
    expect(readme).to.include(example.slice(example.indexOf('[sinks.stream]')).trim());
  });
});
