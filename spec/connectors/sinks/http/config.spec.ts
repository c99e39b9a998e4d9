import { expect } from 'chai';
import * as v from 'valibot';
import { HttpSinkConfig } from '../../../../connectors/sinks/http/config.js';
import { httpSink } from '../../../../connectors/sinks/http/index.js';

const base = { type: 'http', inputs: ['in'], uri: 'http://127.0.0.1:1/x', encoding: {} };
const issues = (cfg: Record<string, unknown>) => {
  const r = v.safeParse(HttpSinkConfig, cfg);
  return r.success ? [] : r.issues.map((i) => `${v.getDotPath(i) ?? ''}: ${i.message}`);
};

describe('connectors/sinks/http: config', () => {
  it('has the spec defaults', () => {
    const c = v.parse(HttpSinkConfig, base);
    expect(c.method).to.equal('post');
    expect(c.compression).to.equal('none');
    expect(c.encoding.codec).to.equal('json');
    expect(c.batch).to.deep.equal({ max_bytes: 10_000_000, timeout_secs: 1 });
    expect(c.request.concurrency).to.equal('adaptive');
    expect(c.request.timeout_secs).to.equal(60);
    expect(c.request.retry_initial_backoff_secs).to.equal(1);
    expect(c.request.retry_max_duration_secs).to.equal(3600);
    expect(c.request.adaptive_concurrency).to.include({ decrease_ratio: 0.9, ewma_alpha: 0.7, rtt_deviation_scale: 2 });
    expect(c.healthcheck.enabled).to.equal(true);
    expect(c.buffer).to.deep.equal({ type: 'memory', max_events: 500, when_full: 'block' });
    expect(httpSink.type).to.equal('http');
    expect(httpSink.kind).to.equal('sink');
  });

  it('accepts the full option set', () => {
    const c = v.parse(HttpSinkConfig, {
      ...base,
      method: 'put',
      auth: { strategy: 'basic', user: 'u', password: 'p' },
      compression: 'gzip',
      encoding: { codec: 'ndjson', except_fields: ['a'] },
      batch: { max_events: 10, max_bytes: 1000, timeout_secs: 0.5 },
      request: { concurrency: 4, rate_limit_num: 10, headers: { 'X-A': 'b' } },
      tls: { verify_certificate: false },
      proxy: { http: 'http://p:3128', no_proxy: ['*.local'] },
      acknowledgements: { enabled: true },
      healthcheck: { uri: 'http://127.0.0.1:1/health' },
      buffer: { type: 'disk', max_size: 268435488, when_full: 'block' },
    });
    expect(c.batch.timeout_secs).to.equal(0.5);
  });

  it('rejects bad values with their paths', () => {
    expect(issues({ ...base, uri: 'not a url' })[0]).to.match(/^uri:/);
    expect(issues({ ...base, uri: 'ftp://x/' })[0]).to.match(/^uri: must be an http/);
    expect(issues({ ...base, compression: 'zstd' })[0]).to.match(/^compression:/);
    expect(issues({ ...base, encoding: { codec: 'logfmt' } })[0]).to.match(/^encoding.codec:/);
    expect(issues({ ...base, method: 'fetch' })[0]).to.match(/^method:/);
    expect(issues({ ...base, nope: 1 })[0]).to.match(/nope/);
    expect(issues({ ...base, batch: { max_events: 0 } })[0]).to.match(/^batch.max_events:/);
    expect(issues({ ...base, batch: { timeout_secs: 0 } })[0]).to.match(/^batch.timeout_secs:/);
    expect(issues({ ...base, auth: { strategy: 'bearer' } })[0]).to.match(/^auth.token:/);
    expect(issues({ ...base, request: { concurrency: 0 } })[0]).to.match(/^request.concurrency:/);
    expect(issues({ ...base, request: { adaptive_concurrency: { decrease_ratio: 1 } } })[0]).to.match(/^request.adaptive_concurrency.decrease_ratio:/);
  });

  it('rejects contradictions: auth with an Authorization header or URI credentials; payload_prefix without json', () => {
    expect(issues({ ...base, auth: { strategy: 'bearer', token: 't' }, request: { headers: { authorization: 'x' } } })[0]).to.match(/^auth: an Authorization header/);
    expect(issues({ ...base, uri: 'http://u:p@h/', auth: { strategy: 'bearer', token: 't' } })[0]).to.match(/^uri: credentials/);
    expect(issues({ ...base, encoding: { codec: 'ndjson' }, payload_prefix: '[' })[0]).to.match(/^payload_prefix:/);
    expect(issues({ ...base, headers: { 'bad header': 'x' } })).to.have.length(1);
    expect(issues({ ...base, tls: { enabled: true } })[0]).to.match(/^tls: tls.enabled does not apply/);
  });
});
