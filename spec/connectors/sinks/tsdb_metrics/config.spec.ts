import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import * as v from 'valibot';
import { validateCommand } from '../../../../bin/cli/validate.js';
import { TsdbMetricsConfig } from '../../../../connectors/sinks/tsdb_metrics/config.js';
import { tsdbMetricsSink } from '../../../../connectors/sinks/tsdb_metrics/index.js';

const base = { type: 'tsdb_metrics', inputs: ['in'], endpoint: 'http://127.0.0.1:8086' };

const dir = mkdtempSync(join(tmpdir(), 'weir-tsdb-validate-'));
let n = 0;
/** Runs `weir validate` on a config whose sink `out` has `sink` (TOML lines) and returns its report. */
async function validate(sink: string): Promise<{ code: number; out: string }> {
  const file = join(dir, `c${n++}.toml`);
  writeFileSync(file, `[sources.m]\ntype = "internal_metrics"\n\n[sinks.out]\ntype = "tsdb_metrics"\ninputs = ["m"]\n${sink.includes('endpoint =') ? '' : 'endpoint = "http://127.0.0.1:8086"\n'}${sink}\n`);
  let out = '';
  const w = new Writable({ write(chunk, _enc, cb) { out += chunk; cb(); } });
  const code = await validateCommand({ files: [file], environment: false, skipHealthchecks: true, denyWarnings: false }, w);
  return { code, out };
}

describe('connectors/sinks/tsdb_metrics: config', () => {
  it('has the documented defaults (request, batch)', () => {
    const c = v.parse(TsdbMetricsConfig, { ...base, database: 'd' });
    expect(c.batch).to.deep.equal({ max_events: 20, timeout_secs: 1 });
    expect(c.request).to.include({ concurrency: 'adaptive', rate_limit_num: 9.223372036854776e18, retry_attempts: 1.8446744073709552e19, retry_max_duration_secs: 3600, timeout_secs: 60, retry_initial_backoff_secs: 1 });
    expect(c.request.adaptive_concurrency).to.include({ decrease_ratio: 0.9, ewma_alpha: 0.7, rtt_deviation_scale: 2 });
    expect(c.quantiles).to.deep.equal([0.5, 0.75, 0.9, 0.95, 0.99]);
    expect(c.tags).to.deep.equal({});
    expect(c.encoding.timestamp_format).to.equal('rfc3339');
    expect(c.healthcheck.enabled).to.equal(true);
    expect(c.buffer).to.deep.equal({ type: 'memory', max_events: 500, when_full: 'block' });
    expect(tsdbMetricsSink.input).to.equal('metric');
    expect(tsdbMetricsSink.pullSize!(c)).to.equal(20);
  });

  it('accepts both full option sets', () => {
    const common = {
      default_namespace: 'svc',
      tags: { region: 'eu' },
      quantiles: [0.5, 1],
      encoding: { only_fields: ['value'], timestamp_format: 'unix_ms' },
      batch: { max_events: 5, timeout_secs: 0.5 },
      request: { concurrency: 2, retry_attempts: 3, timeout_secs: 2 },
      tls: { verify_certificate: false },
      proxy: { http: 'http://127.0.0.1:3128' },
      acknowledgements: { enabled: true },
      healthcheck: { enabled: false },
      buffer: { type: 'memory', max_events: 10 },
    };
    v.parse(TsdbMetricsConfig, { ...base, ...common, database: 'd', consistency: 'quorum', retention_policy_name: 'autogen', username: 'u', password: 'p' });
    v.parse(TsdbMetricsConfig, { ...base, ...common, org: 'o', bucket: 'b', token: 't' });
  });

  const cases: [string, string, (string | RegExp)[]][] = [
    ['generation 2 option with database', 'database = "d"\ntoken = "t"', ['sinks.out.token: a generation 2 option; with database set (generation 1) the allowed options are database, consistency, retention_policy_name, username, password']],
    ['generation 1 option with org/bucket/token', 'org = "o"\nbucket = "b"\ntoken = "t"\nconsistency = "one"', ['sinks.out.consistency: a generation 1 option; with org, bucket, token set (generation 2) the allowed options are org, bucket, token']],
    ['incomplete generation 2', 'org = "o"\ntoken = "t"', ['sinks.out.bucket: missing required option: generation 2 needs all of org, bucket, token']],
    ['no generation at all', 'username = "u"', ['sinks.out.database: missing required option: set database (generation 1: database, consistency, retention_policy_name, username, password) or org, bucket and token (generation 2)']],
    ['batch.max_bytes', 'database = "d"\nbatch.max_bytes = 1000', ['sinks.out.batch.max_bytes: not allowed: this sink batches by event count; use max_events']],
    ['consistency outside its values', 'database = "d"\nconsistency = "most"', ['sinks.out.consistency', '"any", "one", "quorum", "all"', 'got "most"']],
    ['unix_float timestamps', 'database = "d"\nencoding.timestamp_format = "unix_float"', ['sinks.out.encoding.timestamp_format: line protocol timestamps are integers']],
    ['an encoding codec', 'database = "d"\nencoding.codec = "json"', ['sinks.out.encoding.codec: unknown option; allowed options: only_fields, except_fields, timestamp_format']],
    ['a quantile above 1', 'database = "d"\nquantiles = [0.5, 1.5]', ['sinks.out.quantiles[1]: quantiles must be in [0, 1]']],
    ['tls.enabled', 'database = "d"\ntls.enabled = true', ['sinks.out.tls: tls.enabled does not apply']],
    ['an endpoint that is not http', 'database = "d"\nendpoint = "udp://127.0.0.1:8089"', ['sinks.out.endpoint: must be an http or https URL']],
  ];
  for (const [kind, text, expected] of cases) {
    it(`weir validate locates the error: ${kind}`, async () => {
      const { code, out } = await validate(text);
      expect(code, out).to.equal(78);
      for (const e of expected) {
        if (typeof e === 'string') expect(out).to.include(e);
        else expect(out).to.match(e);
      }
    });
  }

  it('weir validate accepts a complete generation 1 and generation 2 sink', async () => {
    expect((await validate('database = "d"\nusername = "u"\npassword = "p"')).code).to.equal(0);
    expect((await validate('org = "o"\nbucket = "b"\ntoken = "t"')).code).to.equal(0);
  });
});
