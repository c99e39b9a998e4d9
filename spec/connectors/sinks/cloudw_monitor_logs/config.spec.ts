/** `cloudw_monitor_logs` options: the spec's defaults, and `weir validate` naming each bad option. */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import * as v from 'valibot';
import { validateCommand } from '../../../../bin/cli/validate.js';
import { CloudwMonitorLogsConfig } from '../../../../connectors/sinks/cloudw_monitor_logs/config.js';
import { cloudwMonitorLogsSink } from '../../../../connectors/sinks/cloudw_monitor_logs/index.js';

const base = { type: 'cloudw_monitor_logs', inputs: ['in'], region: 'eu-west-1', group_name: 'app', stream_name: '{{ host }}' };

const dir = mkdtempSync(join(tmpdir(), 'weir-cloudw-logs-validate-'));
let n = 0;
/** Runs `weir validate` on a config whose sink `out` has `sink` (TOML lines) and returns its report. */
async function validate(sink: string): Promise<{ code: number; out: string }> {
  const file = join(dir, `c${n++}.toml`);
  writeFileSync(file, `[sources.in]\ntype = "stdin"\n\n[sinks.out]\ntype = "cloudw_monitor_logs"\ninputs = ["in"]\n${sink}\n`);
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

describe('connectors/sinks/cloudw_monitor_logs: config', () => {
  it('has the documented defaults (request, batch) and takes logs only', () => {
    const c = v.parse(CloudwMonitorLogsConfig, base);
    expect(c).to.include({ create_missing_group: true, create_missing_stream: true, compression: 'none' });
    expect([c.kms_key, c.tags]).to.deep.equal([undefined, undefined]);
    expect(c.retention).to.deep.equal({ enabled: false });
    expect(c.encoding).to.include({ codec: 'json', timestamp_format: 'rfc3339' });
    expect(c.batch).to.deep.equal({ max_events: 10_000, max_bytes: 1_048_576, timeout_secs: 1 });
    expect(c.request).to.include({ rate_limit_num: 9.223372036854776e18, retry_attempts: 1.8446744073709552e19, retry_max_duration_secs: 3600, timeout_secs: 60, retry_initial_backoff_secs: 1 });
    expect(c.request.adaptive_concurrency).to.include({ decrease_ratio: 0.9, ewma_alpha: 0.7, rtt_deviation_scale: 2 });
    expect(c.healthcheck.enabled).to.equal(true);
    expect(c.auth.load_timeout_secs).to.equal(5);
    expect(cloudwMonitorLogsSink.input).to.equal('log');
    expect(cloudwMonitorLogsSink.aliases).to.deep.equal(['aws_cloudwatch_logs']);
    expect(cloudwMonitorLogsSink.pullSize!(c)).to.equal(10_000);
  });

  it('accepts the full option set', () => {
    v.parse(CloudwMonitorLogsConfig, {
      ...base,
      endpoint: 'http://127.0.0.1:4566',
      create_missing_group: false,
      create_missing_stream: false,
      retention: { enabled: true, days: 14 },
      kms_key: 'arn:aws:kms:eu-west-1:123456789012:key/k',
      tags: { team: 'obs' },
      encoding: { codec: 'text', except_fields: ['x'] },
      compression: 'gzip',
      auth: { access_key_id: 'a', secret_access_key: 'b', assume_role: 'arn:aws:iam::123456789012:role/r', load_timeout_secs: 2, imds: { max_attempts: 2 }, region: 'us-east-1' },
      batch: { max_events: 500, max_bytes: 100_000, timeout_secs: 0.5 },
      request: { concurrency: 3, retry_attempts: 4, timeout_secs: 5 },
      tls: { verify_certificate: false },
      proxy: { https: 'http://127.0.0.1:3128' },
      buffer: { type: 'disk', max_size: 268_435_488 },
      acknowledgements: { enabled: true },
      healthcheck: false,
    });
  });

  const cases: [string, string, string[]][] = [
    ['no region and no endpoint', 'group_name = "g"\nstream_name = "s"', ['sinks.out.region: region is required when endpoint is not set']],
    ['no group_name', 'region = "eu-west-1"\nstream_name = "s"', ['sinks.out.group_name']],
    ['a malformed stream_name template', 'region = "eu-west-1"\ngroup_name = "g"\nstream_name = "{{ host"', ['sinks.out.stream_name: invalid template']],
    ['batch.max_events over the service limit', 'region = "eu-west-1"\ngroup_name = "g"\nstream_name = "s"\nbatch.max_events = 10001', ['sinks.out.batch.max_events: must be at most 10000']],
    ['batch.max_bytes over the service limit', 'region = "eu-west-1"\ngroup_name = "g"\nstream_name = "s"\nbatch.max_bytes = 2000000', ['sinks.out.batch.max_bytes: must be at most 1048576']],
    ['a codec the sink does not have', 'region = "eu-west-1"\ngroup_name = "g"\nstream_name = "s"\nencoding.codec = "logfmt"', ['sinks.out.encoding.codec']],
    ['compression zstd', 'region = "eu-west-1"\ngroup_name = "g"\nstream_name = "s"\ncompression = "zstd"', ['sinks.out.compression']],
    ['disk_v1 buffers (only the stream, object-storage and metrics sinks)', 'region = "eu-west-1"\ngroup_name = "g"\nstream_name = "s"\nbuffer.type = "disk_v1"\nbuffer.max_size = 268435488', ['sinks.out.buffer.type']],
    ['retention.days not a period the service takes', 'region = "eu-west-1"\ngroup_name = "g"\nstream_name = "s"\nretention.enabled = true\nretention.days = 10', ['sinks.out.retention.days: must be one of 1, 3, 5']],
    ['retention.enabled without days', 'region = "eu-west-1"\ngroup_name = "g"\nstream_name = "s"\nretention.enabled = true', ['sinks.out.retention.days: missing required option: retention.enabled needs days']],
    ['a half key pair', 'region = "eu-west-1"\ngroup_name = "g"\nstream_name = "s"\nauth.access_key_id = "a"', ['sinks.out.auth.access_key_id: access_key_id requires secret_access_key']],
  ];
  for (const [kind, text, expected] of cases) {
    it(`weir validate locates the error: ${kind}`, async () => {
      const { code, out } = await validate(text);
      expect(code, out).to.equal(78);
      for (const e of expected) expect(out).to.include(e);
    });
  }

  it('weir validate accepts a sink with region or endpoint, under its Vector name too', async () => {
    expect((await validate('region = "eu-west-1"\ngroup_name = "g"\nstream_name = "s"')).code).to.equal(0);
    expect((await validate('endpoint = "http://127.0.0.1:4566"\ngroup_name = "g"\nstream_name = "s"')).code).to.equal(0);
    const file = join(dir, 'vector.toml');
    writeFileSync(file, '[sources.in]\ntype = "stdin"\n\n[sinks.out]\ntype = "aws_cloudwatch_logs"\ninputs = ["in"]\nregion = "eu-west-1"\ngroup_name = "g"\nstream_name = "s"\nencoding.codec = "json"\n');
    const w = new Writable({ write: (_c, _e, cb) => cb() });
    expect(await validateCommand({ files: [file], environment: false, skipHealthchecks: true, denyWarnings: false }, w)).to.equal(0);
  });
});
