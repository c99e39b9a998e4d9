import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import { lastValueFrom, from, toArray } from 'rxjs';
import * as v from 'valibot';
import { PrometheusRemoteWriteSinkConfig } from '../../../../connectors/sinks/prometheus_remote_write/config.js';
import { createRemoteWriteEncoder } from '../../../../connectors/sinks/prometheus_remote_write/encoder.js';
import { buildPrometheusRemoteWriteSink, prometheusRemoteWriteHealthcheck } from '../../../../connectors/sinks/prometheus_remote_write/sink.js';
import { type WireWriteRequest, decodeWriteRequest } from '../../../../connectors/shared/prometheus/remote-write-proto.js';
import { type Delivery, type EventBatch, EventMetadata, MetricEvent, type MetricKind, type MetricValue } from '../../../../lib/event.js';
import { snappyUncompress } from '../../../../lib/net/snappy.js';
import { Timestamp } from '../../../../lib/value.js';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '../../../helpers/sdk-sha256.js';
import { makeTestCerts } from '../../../helpers/certs.js';
import { type RecordedRequest, startTestServer } from '../../../helpers/http-test-server.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { startTinyproxy } from '../../../helpers/tinyproxy.js';
import { sharedPrometheus } from '../../../peers/prometheus.js';

const parse = (o: Record<string, unknown>) => v.parse(PrometheusRemoteWriteSinkConfig, { type: 'prometheus_remote_write', inputs: ['in'], ...o });
const metric = (name: string, kind: MetricKind, value: MetricValue, tags?: Record<string, string>, ts?: number) =>
  new MetricEvent(name, kind, value, new EventMetadata('in', 'test'), undefined, tags, ts === undefined ? undefined : new Timestamp(ts));

/** Runs the sink over `batches` to completion; returns the deliveries. */
function runSink(config: ReturnType<typeof parse>, batches: EventBatch[]): Promise<Delivery[]> {
  return lastValueFrom(from(batches).pipe(buildPrometheusRemoteWriteSink(config, testSinkContext('prometheus_remote_write')), toArray()));
}

/** A recorded request's WriteRequest (snappy or gzip undone). */
function decoded(r: RecordedRequest): WireWriteRequest {
  const raw = r.headers['content-encoding'] === 'gzip' ? gunzipSync(r.raw) : snappyUncompress(r.raw);
  return decodeWriteRequest(raw);
}

/** `name{labels} value@ts` lines of a request, for compact assertions. */
const lines = (req: WireWriteRequest) =>
  req.timeseries.flatMap((ts) => {
    const name = ts.labels.find((l) => l.name === '__name__')!.value;
    const rest = ts.labels.filter((l) => l.name !== '__name__').map((l) => `${l.name}=${l.value}`);
    return ts.samples.map((s) => `${name}{${rest.join(',')}} ${s.value}@${s.timestamp}`);
  });

const T = 1_700_000_000_000;

describe('connectors/sinks/prometheus_remote_write', () => {
  it('has Vector\'s defaults and refuses what is not there', () => {
    const c = parse({ endpoint: 'http://127.0.0.1:9090/api/v1/write' });
    expect(c.batch).to.deep.equal({ max_events: 1000, timeout_secs: 1, aggregate: true });
    expect(c.compression).to.equal('snappy');
    expect(c.buckets).to.deep.equal([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
    expect(c.quantiles).to.deep.equal([0.5, 0.75, 0.9, 0.95, 0.99]);
    expect(() => parse({})).to.throw();
    expect(() => parse({ endpoint: 'http://x/w', compression: 'zstd' })).to.throw(/zstd compression is not available/);
    expect(() => parse({ endpoint: 'http://x/w', auth: { strategy: 'aws' } })).to.throw(/aws\.region is required/);
    expect(() => parse({ endpoint: 'http://x/w', auth: { strategy: 'aws', access_key_id: 'a' }, aws: { region: 'r' } })).to.throw(/access_key_id requires secret_access_key/);
    expect(() => parse({ endpoint: 'http://x/w', auth: { strategy: 'bearer', token: 't' }, request: { headers: { Authorization: 'x' } } })).to.throw(/Authorization header/);
  });

  it('sends snappy protobuf with the protocol headers; incremental counters as running totals; distributions over `buckets` and `quantiles`; default_namespace', async () => {
    const server = await startTestServer(() => 204);
    try {
      const config = parse({ endpoint: `${server.url}/api/v1/write`, default_namespace: 'ns', buckets: [1, 10], quantiles: [0.5], batch: { max_events: 100 }, request: { headers: { 'X-Extra': 'yes' } } });
      const deliveries = await runSink(config, [
        [metric('hits', 'incremental', { type: 'counter', value: 2 }, { code: '200' }, T)],
        [
          metric('hits', 'incremental', { type: 'counter', value: 3 }, { code: '200' }, T + 1),
          metric('lat', 'absolute', { type: 'distribution', samples: [{ value: 0.5, rate: 2 }, { value: 5, rate: 1 }, { value: 50, rate: 1 }], statistic: 'histogram' }, undefined, T),
          metric('size', 'absolute', { type: 'distribution', samples: [{ value: 1, rate: 1 }, { value: 3, rate: 1 }], statistic: 'summary' }, undefined, T),
          new MetricEvent('g', 'absolute', { type: 'gauge', value: 1.5 }, new EventMetadata('in', 't'), 'own', undefined, new Timestamp(T)),
        ],
      ]);
      expect(deliveries.every((d) => d.status === 'delivered')).to.equal(true);
      expect(server.requests).to.have.length(1);
      const r = server.requests[0]!;
      expect(r.method).to.equal('POST');
      expect(r.url).to.equal('/api/v1/write');
      expect(r.headers).to.include({ 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0', 'x-extra': 'yes' });
      const req = decoded(r);
      expect(lines(req)).to.deep.equal([
        `ns_hits{code=200} 5@${T + 1}`,
        `ns_lat_bucket{le=1} 2@${T}`,
        `ns_lat_bucket{le=10} 3@${T}`,
        `ns_lat_bucket{le=+Inf} 4@${T}`,
        `ns_lat_sum{} 56@${T}`,
        `ns_lat_count{} 4@${T}`,
        `ns_size{quantile=0.5} 1@${T}`,
        `ns_size_sum{} 4@${T}`,
        `ns_size_count{} 2@${T}`,
        `ns_size_min{} 1@${T}`,
        `ns_size_max{} 3@${T}`,
        `ns_size_avg{} 2@${T}`,
        `own_g{} 1.5@${T}`,
      ]);
      expect(req.metadata.map((m) => [m.metric_family_name, m.type, m.help])).to.deep.equal([
        ['ns_hits', 1, 'hits'],
        ['ns_lat', 3, 'lat'],
        ['ns_size', 5, 'size'],
        ['own_g', 2, 'g'],
      ]);
    } finally {
      await server.close();
    }
  });

  it('batch.aggregate keeps the latest value of a series; false sends every one', async () => {
    const server = await startTestServer(() => 200);
    try {
      const batch = [metric('g', 'absolute', { type: 'gauge', value: 1 }, undefined, T), metric('g', 'absolute', { type: 'gauge', value: 2 }, undefined, T + 1)];
      await runSink(parse({ endpoint: server.url, batch: { max_events: 10 } }), [batch]);
      await runSink(parse({ endpoint: server.url, batch: { max_events: 10, aggregate: false } }), [batch.map((m) => m.clone())]);
      expect(lines(decoded(server.requests[0]!))).to.deep.equal([`g{} 2@${T + 1}`]);
      expect(lines(decoded(server.requests[1]!))).to.deep.equal([`g{} 1@${T}`, `g{} 2@${T + 1}`]);
    } finally {
      await server.close();
    }
  });

  it('tenant_id: X-Scope-OrgID per tenant, one request each; a metric without the field is rejected', async () => {
    const server = await startTestServer(() => 200);
    try {
      const deliveries = await runSink(parse({ endpoint: server.url, tenant_id: '{{ tags.team }}' }), [
        [metric('a', 'absolute', { type: 'gauge', value: 1 }, { team: 'red' }, T), metric('b', 'absolute', { type: 'gauge', value: 2 }, { team: 'blue' }, T), metric('c', 'absolute', { type: 'gauge', value: 3 }, undefined, T)],
      ]);
      const byTenant = Object.fromEntries(server.requests.map((r) => [r.headers['x-scope-orgid'], lines(decoded(r))]));
      expect(byTenant).to.deep.equal({ red: [`a{team=red} 1@${T}`], blue: [`b{team=blue} 2@${T}`] });
      expect(deliveries.filter((d) => d.status === 'rejected').flatMap((d) => d.events.map((e) => (e as MetricEvent).name))).to.deep.equal(['c']);
    } finally {
      await server.close();
    }
  });

  it('auth: bearer and basic headers; compression = "gzip"', async () => {
    const server = await startTestServer(() => 200);
    try {
      const one = () => [[metric('g', 'absolute', { type: 'gauge', value: 1 }, undefined, T)]];
      await runSink(parse({ endpoint: server.url, auth: { strategy: 'bearer', token: 'tok' } }), one());
      await runSink(parse({ endpoint: server.url, auth: { strategy: 'basic', user: 'u', password: 'p' }, compression: 'gzip' }), one());
      expect(server.requests[0]!.headers.authorization).to.equal('Bearer tok');
      expect(server.requests[1]!.headers.authorization).to.equal(`Basic ${Buffer.from('u:p').toString('base64')}`);
      expect(server.requests[1]!.headers['content-encoding']).to.equal('gzip');
      expect(lines(decoded(server.requests[1]!))).to.deep.equal([`g{} 1@${T}`]);
    } finally {
      await server.close();
    }
  });

  it('batch.max_events bounds a request; tls.ca_file trusts an https endpoint', async () => {
    const certs = makeTestCerts();
    const server = await startTestServer(() => 200, { key: certs.read(certs.serverKey), cert: certs.read(certs.serverCrt) });
    try {
      const url = server.url.replace('127.0.0.1', 'localhost');
      const three = [0, 1, 2].map((i) => metric(`m${i}`, 'absolute', { type: 'gauge', value: i }, undefined, T));
      const ok = await runSink(parse({ endpoint: url, tls: { ca_file: certs.caCrt }, batch: { max_events: 2 } }), [three]);
      expect(ok.map((d) => d.status)).to.deep.equal(['delivered', 'delivered']);
      expect(server.requests.map((r) => lines(decoded(r)).length)).to.deep.equal([2, 1]);
      const untrusted = await runSink(parse({ endpoint: url, request: { retry_attempts: 0 } }), [[three[0]!.clone()]]);
      expect(untrusted.map((d) => d.status)).to.not.include('delivered');
      expect(server.requests).to.have.length(2);
    } finally {
      await server.close();
      certs.remove();
    }
  });

  it('auth.strategy = "aws" signs each request with SigV4 for `aps` in aws.region, as the SDK\'s signer verifies', async () => {
    const server = await startTestServer(() => 200);
    try {
      const creds = { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret/key+example', sessionToken: 'tok' };
      const config = parse({
        endpoint: `${server.url}/workspaces/ws-1/api/v1/remote_write`,
        tenant_id: 'team-a',
        auth: { strategy: 'aws', access_key_id: creds.accessKeyId, secret_access_key: creds.secretAccessKey, session_token: creds.sessionToken },
        aws: { region: 'eu-central-1' },
      });
      const deliveries = await runSink(config, [[metric('g', 'absolute', { type: 'gauge', value: 1 }, undefined, T)]]);
      expect(deliveries.map((d) => d.status)).to.deep.equal(['delivered']);
      const r = server.requests[0]!;
      const auth = String(r.headers.authorization);
      expect(auth).to.match(/^AWS4-HMAC-SHA256 Credential=AKIDTEST\/\d{8}\/eu-central-1\/aps\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/);
      expect(r.headers['x-amz-security-token']).to.equal('tok');
      const signed = /SignedHeaders=([^,]+)/.exec(auth)![1]!.split(';');
      expect(signed).to.include.members(['host', 'x-amz-date', 'x-scope-orgid', 'content-encoding', 'x-amz-content-sha256']);
      // the SDK's signer, fed what arrived, computes the same signature
      const headers: Record<string, string> = {};
      for (const h of signed) headers[h] = String(r.headers[h]);
      const amzDate = String(r.headers['x-amz-date']);
      const date = new Date(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`);
      const signer = new SignatureV4({ credentials: creds, region: 'eu-central-1', service: 'aps', sha256: Sha256 });
      const theirs = await signer.sign({ method: 'POST', protocol: 'http:', hostname: '127.0.0.1', path: r.url, headers, body: r.raw }, { signingDate: date });
      expect(auth).to.equal(theirs.headers.authorization);
    } finally {
      await server.close();
    }
  });

  it('retries a 5xx, rejects a 400 without retrying', async () => {
    let n = 0;
    const server = await startTestServer((r) => (r.url === '/bad' ? 400 : n++ === 0 ? 503 : 200));
    try {
      const one = () => [[metric('g', 'absolute', { type: 'gauge', value: 1 }, undefined, T)]];
      const ok = await runSink(parse({ endpoint: `${server.url}/good`, request: { retry_initial_backoff_secs: 1 } }), one());
      expect(ok.map((d) => d.status)).to.deep.equal(['delivered']);
      const bad = await runSink(parse({ endpoint: `${server.url}/bad` }), one());
      expect(bad.map((d) => d.status)).to.deep.equal(['rejected']);
      expect(server.requests.map((r) => r.url)).to.deep.equal(['/good', '/good', '/bad']);
    } finally {
      await server.close();
    }
  });

  it('proxy.http carries the writes through tinyproxy; no_proxy goes direct', async () => {
    const server = await startTestServer(() => 204);
    const proxy = await startTinyproxy();
    try {
      const host = new URL(server.url).host;
      const one = () => [[metric('g', 'absolute', { type: 'gauge', value: 1 }, undefined, T)]];
      const proxied = { endpoint: `${server.url}/api/v1/write`, proxy: { http: proxy.url } };
      expect((await runSink(parse(proxied), one())).map((d) => d.status)).to.deep.equal(['delivered']);
      await proxy.waitForRequestsTo(host, 1);
      expect((await runSink(parse({ ...proxied, proxy: { http: proxy.url, no_proxy: ['127.0.0.1'] } }), one())).map((d) => d.status)).to.deep.equal(['delivered']);
      // a proxied write after the direct one marks where tinyproxy's log is
      await runSink(parse(proxied), one());
      await proxy.waitForRequestsTo(host, 2);
      expect(proxy.requestsTo(host)).to.equal(2, proxy.connections().join('\n'));
      expect(server.requests).to.have.length(3);
    } finally {
      await proxy.stop();
      await server.close();
    }
  });

  it('expire_metrics_secs drops a running total not updated for that long (virtual time)', () => {
    let now = 0;
    const total = (enc: ReturnType<typeof createRemoteWriteEncoder>, value: number) => (enc.encode(metric('c', 'incremental', { type: 'counter', value })).metric.value as { value: number }).value;
    const expiring = createRemoteWriteEncoder(parse({ endpoint: 'http://x/w', expire_metrics_secs: 60 }), () => now);
    const keeping = createRemoteWriteEncoder(parse({ endpoint: 'http://x/w' }), () => now);
    expect([total(expiring, 1), total(keeping, 1)]).to.deep.equal([1, 1]);
    now = 59_999;
    expect([total(expiring, 1), total(keeping, 1)]).to.deep.equal([2, 2]);
    now = 59_999 + 60_000;
    expect([total(expiring, 1), total(keeping, 1)]).to.deep.equal([1, 3]);
    expect(expiring.totals).to.equal(1);
  });

  it('health check: GET of the endpoint or healthcheck.uri, 200 is healthy', async () => {
    const server = await startTestServer((r) => (r.url === '/write' ? 405 : 200));
    try {
      const ctx = testSinkContext('prometheus_remote_write');
      await prometheusRemoteWriteHealthcheck(parse({ endpoint: `${server.url}/ready` }), ctx);
      let err: unknown;
      await prometheusRemoteWriteHealthcheck(parse({ endpoint: `${server.url}/write` }), ctx).catch((e: unknown) => (err = e));
      expect(String(err)).to.match(/answered 405/);
      await prometheusRemoteWriteHealthcheck(parse({ endpoint: `${server.url}/write`, healthcheck: { uri: `${server.url}/-/healthy` } }), ctx);
      expect(server.requests.map((r) => `${r.method} ${r.url}`)).to.deep.equal(['GET /ready', 'GET /write', 'GET /-/healthy']);
    } finally {
      await server.close();
    }
  });

  it('writes into the real Prometheus (remote-write receiver), read back through its query API', async function () {
    this.timeout(120_000);
    const prom = await sharedPrometheus();
    const now = Date.now();
    const deliveries = await runSink(parse({ endpoint: `${prom.url}/api/v1/write`, default_namespace: 'rwsink', buckets: [0.1, 1], tenant_id: 'ignored-by-prometheus' }), [
      [
        metric('jobs_total', 'incremental', { type: 'counter', value: 4 }, { queue: 'a "quoted" \\ one' }, now),
        metric('jobs_total', 'incremental', { type: 'counter', value: 6 }, { queue: 'a "quoted" \\ one' }, now + 1),
        metric('temp', 'absolute', { type: 'gauge', value: -3.25 }, { room: 'lab' }, now),
        metric('lat', 'absolute', { type: 'distribution', samples: [{ value: 0.05, rate: 3 }, { value: 0.5, rate: 1 }, { value: 5, rate: 1 }], statistic: 'histogram' }, undefined, now),
        metric('users', 'absolute', { type: 'set', values: ['a', 'b'] }, undefined, now),
      ],
    ]);
    expect(deliveries.map((d) => d.status)).to.deep.equal(['delivered']);
    const jobs = await prom.waitFor('rwsink_jobs_total', (r) => r.length === 1);
    expect(jobs[0]!.metric.queue).to.equal('a "quoted" \\ one');
    expect(jobs[0]!.value).to.equal(10);
    expect((await prom.query('rwsink_temp{room="lab"}'))[0]!.value).to.equal(-3.25);
    expect((await prom.query('rwsink_users'))[0]!.value).to.equal(2);
    const buckets = Object.fromEntries((await prom.query('rwsink_lat_bucket')).map((s) => [s.metric.le, s.value]));
    expect(buckets).to.deep.equal({ '0.1': 3, '1': 4, '+Inf': 5 });
    expect((await prom.query('rwsink_lat_count'))[0]!.value).to.equal(5);
    // its receiver reads snappy only: a gzip body is refused (400), and the sink does not retry it
    const gz = await runSink(parse({ endpoint: `${prom.url}/api/v1/write`, compression: 'gzip' }), [[metric('gz_only', 'absolute', { type: 'gauge', value: 1 }, undefined, now)]]);
    expect(gz.map((d) => d.status)).to.deep.equal(['rejected']);
  });
});
