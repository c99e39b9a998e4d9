import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import * as v from 'valibot';
import { validateCommand } from '../../../../bin/cli/validate.js';
import { DEFAULT_ENDPOINT, LogsvcMetricsConfig } from '../../../../connectors/sinks/logsvc_metrics/config.js';
import { logsvcMetricsSink } from '../../../../connectors/sinks/logsvc_metrics/index.js';

const base = { type: 'logsvc_metrics', inputs: ['in'], token: 't' };

const dir = mkdtempSync(join(tmpdir(), 'weir-logsvc-validate-'));
let n = 0;
/** Runs `weir validate` on a config whose sink `out` has `sink` (TOML lines) and returns its report. */
async function validate(sink: string): Promise<{ code: number; out: string }> {
  const file = join(dir, `c${n++}.toml`);
  const token = sink.includes('token =') ? '' : 'token = "t"\n';
  writeFileSync(file, `[sources.m]\ntype = "internal_metrics"\n\n[sinks.out]\ntype = "logsvc_metrics"\ninputs = ["m"]\n${token}${sink}\n`);
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

describe('connectors/sinks/logsvc_metrics: config', () => {
  it('has the documented defaults (request and concurrency, batch)', () => {
    const c = v.parse(LogsvcMetricsConfig, base);
    expect(c.endpoint).to.equal(DEFAULT_ENDPOINT);
    expect(c.batch).to.deep.equal({ max_bytes: 1_000_000, timeout_secs: 1 });
    expect(c.compression).to.equal('none');
    expect(c).to.include({ host_key: 'host', host_tag: 'host', metric_tag_values: 'single' });
    expect(c.indexed_fields).to.deep.equal([]);
    expect(c.request).to.include({ concurrency: 'adaptive', rate_limit_num: 9.223372036854776e18, retry_attempts: 9.223372036854776e18, retry_max_duration_secs: 3600, timeout_secs: 60 });
    expect(c.request.adaptive_concurrency).to.include({ decrease_ratio: 0.9, ewma_alpha: 0.4, rtt_deviation_scale: 2.5, initial_concurrency: 1 });
    expect(c.acknowledgements).to.deep.equal({});
    expect(logsvcMetricsSink.input).to.equal('metric');
  });

  it('accepts the full option set', () => {
    v.parse(LogsvcMetricsConfig, {
      ...base,
      endpoint: 'https://logs.example.com/',
      event_type: 'metrics-{{ kind }}',
      host_key: 'hostname',
      host_tag: 'node',
      index: 'repo',
      indexed_fields: ['name', '#tags.env'],
      metric_tag_values: 'full',
      source: '{{ namespace }}',
      timezone: 'Europe/Paris',
      compression: 'gzip',
      batch: { max_bytes: 1000, timeout_secs: 0.5 },
      request: { concurrency: 'adaptive', adaptive_concurrency: { initial_concurrency: 4 } },
      tls: { verify_certificate: true },
      acknowledgements: { enabled: true },
    });
  });

  const cases: [string, string, string[]][] = [
    ['an endpoint with a path', 'endpoint = "https://cloud.example.com/api/v1/ingest/hec"', ['sinks.out.endpoint: must be a base URL with no path, query or fragment']],
    ['an endpoint with a query', 'endpoint = "https://cloud.example.com/?x=1"', ['sinks.out.endpoint: must be a base URL with no path']],
    ['an endpoint without a scheme', 'endpoint = "cloud.example.com"', ['sinks.out.endpoint: must be a URL']],
    ['an endpoint that is not http', 'endpoint = "ftp://cloud.example.com"', ['sinks.out.endpoint: must be an http or https URL']],
    ['no token', 'token = ""', ['sinks.out.token: must not be empty']],
    ['metric_tag_values outside its values', 'metric_tag_values = "all"', ['sinks.out.metric_tag_values', '"single", "full"', 'got "all"']],
    ['an unknown time zone', 'timezone = "Mars/Olympus"', ['sinks.out.timezone: must be "local", "UTC" or an IANA time zone name']],
    ['a template that does not compile', 'event_type = "{{ kind"', ['sinks.out.event_type: invalid template "{{ kind": unclosed "{{"']],
    ['an indexed field that is no path', 'indexed_fields = ["ok", "a..b"]', ['sinks.out.indexed_fields[1]: must be a field path']],
    ['indexer acknowledgements (not offered)', 'acknowledgements.indexer_acknowledgements_enabled = true', ['sinks.out.acknowledgements.indexer_acknowledgements_enabled: unknown option']],
    ['initial_concurrency 0', 'request.adaptive_concurrency.initial_concurrency = 0', ['sinks.out.request.adaptive_concurrency.initial_concurrency: must be at least 1']],
    ['compression outside its values', 'compression = "snappy"', ['sinks.out.compression', '"none", "gzip"']],
  ];
  for (const [kind, text, expected] of cases) {
    it(`weir validate locates the error: ${kind}`, async () => {
      const { code, out } = await validate(text);
      expect(code, out).to.equal(78);
      for (const e of expected) expect(out).to.include(e);
    });
  }

  it('weir validate accepts a base URL with or without a trailing "/"', async () => {
    for (const endpoint of ['https://cloud.example.com', 'http://127.0.0.1:8080/']) {
      const { code, out } = await validate(`endpoint = "${endpoint}"`);
      expect(code, out).to.equal(0);
    }
  });
});
