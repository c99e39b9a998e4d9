import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import * as v from 'valibot';
import { validateCommand } from '../../../../bin/cli/validate.js';
import { SiemHecMetricsConfig } from '../../../../connectors/sinks/siem_hec_metrics/config.js';
import { siemHecMetricsSink } from '../../../../connectors/sinks/siem_hec_metrics/index.js';

const base = { type: 'siem_hec_metrics', inputs: ['in'], endpoint: 'http://127.0.0.1:8088', default_token: 't' };

const dir = mkdtempSync(join(tmpdir(), 'weir-siem-validate-'));
let n = 0;
/** Runs `weir validate` on a config whose sink `out` has `sink` (TOML lines) and returns its report. */
async function validate(sink: string): Promise<{ code: number; out: string }> {
  const file = join(dir, `c${n++}.toml`);
  const endpoint = sink.includes('endpoint =') ? '' : 'endpoint = "http://127.0.0.1:8088"\n';
  const token = sink.includes('default_token') ? '' : 'default_token = "t"\n';
  writeFileSync(file, `[sources.m]\ntype = "internal_metrics"\n\n[sinks.out]\ntype = "siem_hec_metrics"\ninputs = ["m"]\n${endpoint}${token}${sink}\n`);
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

describe('connectors/sinks/siem_hec_metrics: config', () => {
  it('has the documented defaults (request, batch, indexer acknowledgements)', () => {
    const c = v.parse(SiemHecMetricsConfig, base);
    expect(c.batch).to.deep.equal({ max_bytes: 1_000_000, timeout_secs: 1 });
    expect(c.compression).to.equal('none');
    expect(c.host_key).to.equal('host');
    expect(c.acknowledgements).to.deep.equal({ indexer_acknowledgements_enabled: true, max_pending_acks: 1_000_000, query_interval: 10, retry_limit: 30 });
    expect(c.request).to.include({ rate_limit_num: 9.223372036854776e18, retry_attempts: 1.8446744073709552e19, retry_max_duration_secs: 3600, timeout_secs: 60, retry_initial_backoff_secs: 1 });
    expect(c.request.adaptive_concurrency).to.include({ decrease_ratio: 0.9, ewma_alpha: 0.7, rtt_deviation_scale: 2 });
    expect(c.healthcheck.enabled).to.equal(true);
    expect(c.buffer).to.deep.equal({ type: 'memory', max_events: 500, when_full: 'block' });
    expect(siemHecMetricsSink.input).to.equal('metric');
    expect(siemHecMetricsSink.pullSize!(c)).to.equal(1000);
  });

  it('accepts the full option set', () => {
    v.parse(SiemHecMetricsConfig, {
      ...base,
      default_namespace: 'svc',
      host_key: 'node',
      index: 'metrics-{{ tags.env }}',
      source: '{{ name }}',
      sourcetype: 'weir',
      compression: 'gzip',
      acknowledgements: { enabled: true, indexer_acknowledgements_enabled: false, max_pending_acks: 10, query_interval: 2, retry_limit: 5 },
      batch: { max_bytes: 1000, max_events: 5, timeout_secs: 0.5 },
      request: { concurrency: 2, retry_attempts: 3, timeout_secs: 2, headers: { 'X-A': 'b' } },
      tls: { verify_certificate: false },
      proxy: { http: 'http://127.0.0.1:3128' },
      healthcheck: { enabled: false },
      buffer: { type: 'memory', max_events: 10 },
    });
  });

  const cases: [string, string, string[]][] = [
    ['no token', 'endpoint = "http://127.0.0.1:8088"\ndefault_token = ""', ['sinks.out.default_token: must not be empty']],
    ['no endpoint', 'endpoint = "not a url"', ['sinks.out.endpoint: must be a URL']],
    ['an endpoint that is not http', 'endpoint = "udp://127.0.0.1:8088"', ['sinks.out.endpoint: must be an http or https URL']],
    ['a template that does not compile', 'index = "metrics-{{ tags.env"', ['sinks.out.index: invalid template "metrics-{{ tags.env": unclosed "{{"']],
    ['a bad sourcetype template', 'sourcetype = "%Q"', ['sinks.out.sourcetype: invalid template "%Q": unsupported strftime specifier']],
    ['query_interval 0', 'acknowledgements.query_interval = 0', ['sinks.out.acknowledgements.query_interval: must be at least 1; got number 0']],
    ['max_pending_acks 0', 'acknowledgements.max_pending_acks = 0', ['sinks.out.acknowledgements.max_pending_acks: must be at least 1; got number 0']],
    ['retry_limit not a number', 'acknowledgements.retry_limit = "many"', ['sinks.out.acknowledgements.retry_limit: must be a number; got "many"']],
    [
      'an unknown acknowledgements option',
      'acknowledgements.query_every = 3',
      ['sinks.out.acknowledgements.query_every: unknown option; allowed options: enabled, indexer_acknowledgements_enabled, max_pending_acks, query_interval, retry_limit'],
    ],
    ['compression outside its values', 'compression = "zstd"', ['sinks.out.compression', '"none", "gzip"', 'got "zstd"']],
    ['tls.enabled', 'tls.enabled = true', ['sinks.out.tls: tls.enabled does not apply']],
    ['an encoding option (the sink has none)', 'encoding.codec = "json"', ['sinks.out.encoding: unknown option']],
  ];
  for (const [kind, text, expected] of cases) {
    it(`weir validate locates the error: ${kind}`, async () => {
      const { code, out } = await validate(text);
      expect(code, out).to.equal(78);
      for (const e of expected) expect(out).to.include(e);
    });
  }

  it('weir validate accepts a complete sink', async () => {
    const { code, out } = await validate('index = "{{ tags.env }}"\ncompression = "gzip"\nacknowledgements.retry_limit = 3');
    expect(code, out).to.equal(0);
  });
});
