/** `cloudw_monitor_metrics` options: the defaults, and `weir validate` naming each bad option. */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import * as v from 'valibot';
import { validateCommand } from '../../../../bin/cli/validate.js';
import { CloudwMonitorMetricsConfig } from '../../../../connectors/sinks/cloudw_monitor_metrics/config.js';
import { cloudwMonitorMetricsSink } from '../../../../connectors/sinks/cloudw_monitor_metrics/index.js';

const base = { type: 'cloudw_monitor_metrics', inputs: ['in'], region: 'eu-west-1', default_namespace: 'app' };

const dir = mkdtempSync(join(tmpdir(), 'weir-cloudw-metrics-validate-'));
let n = 0;
/** Runs `weir validate` on a config whose sink `out` has `sink` (TOML lines) and returns its report. */
async function validate(sink: string): Promise<{ code: number; out: string }> {
  const file = join(dir, `c${n++}.toml`);
  writeFileSync(file, `[sources.in]\ntype = "internal_metrics"\n\n[sinks.out]\ntype = "cloudw_monitor_metrics"\ninputs = ["in"]\n${sink}\n`);
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

describe('connectors/sinks/cloudw_monitor_metrics: config', () => {
  it('has the defaults (Vector: batch of 20 metrics, rate 150 per second) and takes metrics only', () => {
    const c = v.parse(CloudwMonitorMetricsConfig, base);
    expect(c).to.include({ default_namespace: 'app', compression: 'none' });
    expect(c.batch).to.deep.equal({ max_events: 20, timeout_secs: 1 });
    expect(c.request).to.include({ rate_limit_num: 150, retry_attempts: 1.8446744073709552e19, retry_max_duration_secs: 3600, timeout_secs: 60, retry_initial_backoff_secs: 1 });
    expect(c.healthcheck.enabled).to.equal(true);
    expect(cloudwMonitorMetricsSink.input).to.equal('metric');
    expect(cloudwMonitorMetricsSink.aliases).to.deep.equal(['aws_cloudwatch_metrics']);
    expect(cloudwMonitorMetricsSink.pullSize!(c)).to.equal(20);
  });

  it('accepts the full option set, disk_v1 buffers included', () => {
    const c = v.parse(CloudwMonitorMetricsConfig, {
      ...base,
      endpoint: 'http://127.0.0.1:4566',
      compression: 'gzip',
      auth: { access_key_id: 'a', secret_access_key: 'b', profile: 'p', load_timeout_secs: 2, imds: { max_attempts: 2 }, region: 'us-east-1' },
      batch: { max_events: 1000, timeout_secs: 0.5 },
      request: { concurrency: 3, retry_attempts: 4, timeout_secs: 5, rate_limit_num: 10 },
      tls: { verify_certificate: false },
      proxy: { https: 'http://127.0.0.1:3128' },
      buffer: { type: 'disk_v1', max_size: 268_435_488 },
      acknowledgements: { enabled: true },
      healthcheck: { enabled: false },
    });
    expect(c.buffer.type).to.equal('disk_v1');
  });

  const cases: [string, string, string[]][] = [
    ['no region and no endpoint', 'default_namespace = "app"', ['sinks.out.region: region is required when endpoint is not set']],
    ['no default_namespace', 'region = "eu-west-1"', ['sinks.out.default_namespace']],
    ['a reserved namespace', 'region = "eu-west-1"\ndefault_namespace = "AWS/EC2"', ['sinks.out.default_namespace: must not start with "AWS/"']],
    ['batch.max_bytes', 'region = "eu-west-1"\ndefault_namespace = "app"\nbatch.max_bytes = 1000', ['sinks.out.batch.max_bytes: not allowed: this sink batches by metric count']],
    ['batch.max_events over the service limit', 'region = "eu-west-1"\ndefault_namespace = "app"\nbatch.max_events = 1001', ['sinks.out.batch.max_events: must be at most 1000']],
    ['compression zstd', 'region = "eu-west-1"\ndefault_namespace = "app"\ncompression = "zstd"', ['sinks.out.compression']],
    ['an encoding (the sink has none)', 'region = "eu-west-1"\ndefault_namespace = "app"\nencoding.codec = "json"', ['sinks.out.encoding: unknown option']],
  ];
  for (const [kind, text, expected] of cases) {
    it(`weir validate locates the error: ${kind}`, async () => {
      const { code, out } = await validate(text);
      expect(code, out).to.equal(78);
      for (const e of expected) expect(out).to.include(e);
    });
  }

  it('weir validate refuses a log source as input: the sink takes metric events only', async () => {
    const file = join(dir, 'logs-in.toml');
    writeFileSync(file, '[sources.in]\ntype = "stdin"\n\n[sinks.out]\ntype = "cloudw_monitor_metrics"\ninputs = ["in"]\nregion = "eu-west-1"\ndefault_namespace = "app"\n');
    let out = '';
    const w = new Writable({
      write(chunk, _enc, cb) {
        out += chunk;
        cb();
      },
    });
    expect(await validateCommand({ files: [file], environment: false, skipHealthchecks: true, denyWarnings: false }, w)).to.equal(78);
    expect(out).to.include('sinks.out.inputs[0]: data type mismatch: "in" emits log events but cloudw_monitor_metrics accepts only metric events');
  });

  it('weir validate accepts a sink with region or endpoint, under its Vector name too', async () => {
    expect((await validate('region = "eu-west-1"\ndefault_namespace = "app"')).code).to.equal(0);
    expect((await validate('endpoint = "http://127.0.0.1:4566"\ndefault_namespace = "app"\nbuffer.type = "disk_v1"\nbuffer.max_size = 268435488')).code).to.equal(0);
    const file = join(dir, 'vector.toml');
    writeFileSync(file, '[sources.in]\ntype = "internal_metrics"\n\n[sinks.out]\ntype = "aws_cloudwatch_metrics"\ninputs = ["in"]\nregion = "eu-west-1"\ndefault_namespace = "app"\n');
    const w = new Writable({ write: (_c, _e, cb) => cb() });
    expect(await validateCommand({ files: [file], environment: false, skipHealthchecks: true, denyWarnings: false }, w)).to.equal(0);
  });
});
