import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { Subject, lastValueFrom, of, toArray } from 'rxjs';
import { buildTsdbMetricsSink } from '../../../../connectors/sinks/tsdb_metrics/sink.js';
import type { EventBatch } from '../../../../lib/event.js';
import { until } from '../../../helpers/wait.js';
import { joinEndpoint } from '../../../../connectors/sinks/tsdb_metrics/service.js';
import { type TestCerts, makeTestCerts } from '../../../helpers/certs.js';
import { type TestServer, startTestServer } from '../../../helpers/http-test-server.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { type TestProxy, startTinyproxy } from '../../../helpers/tinyproxy.js';
import { type Influxdb1, sharedInfluxdb1 } from '../../../peers/influxdb1.js';
import { T0_NS, counter, fast, runSink, tsdbConfig, uniqueName } from './harness.js';

describe('connectors/sinks/tsdb_metrics: the write request', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer(() => 204);
  });
  afterEach(() => server.close());

  it('generation 1: /write with consistency, db, rp, p, u, precision in this order, form-urlencoded; no Authorization header', async () => {
    const config = tsdbConfig(server.url + '/influx/', { database: 'my db', consistency: 'quorum', retention_policy_name: 'r', username: 'user', password: 'p@ss&x' });
    await runSink(fast(config), of([counter('a', 1)]));
    const [req] = server.requests;
    expect(req!.method).to.equal('POST');
    expect(req!.url).to.equal('/influx/write?consistency=quorum&db=my+db&rp=r&p=p%40ss%26x&u=user&precision=ns');
    expect(req!.headers.authorization).to.equal(undefined);
    expect(req!.headers['content-type']).to.equal('text/plain');
    expect(req!.body).to.equal(`a,metric_type=counter value=1 ${T0_NS}`);
  });

  it('generation 1 with only a database; generation 1 names microseconds `u`', async () => {
    await runSink(fast(tsdbConfig(server.url, { database: 'd' })), of([counter('a', 1)]));
    await runSink(fast(tsdbConfig(server.url, { database: 'd', encoding: { timestamp_format: 'unix_us' } })), of([counter('a', 1)]));
    await runSink(fast(tsdbConfig(server.url, { org: 'o', bucket: 'b', token: 't', encoding: { timestamp_format: 'unix_us' } })), of([counter('a', 1)]));
    expect(server.requests.map((r) => r.url)).to.deep.equal(['/write?db=d&precision=ns', '/write?db=d&precision=u', '/api/v2/write?org=o&bucket=b&precision=us']);
  });

  it('a batch of only first absolute counter values is delivered without a request', async () => {
    const ds = await runSink(fast(tsdbConfig(server.url, { database: 'd' })), of([counter('a', 5, { kind: 'absolute' })]));
    expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([['delivered', 1]]);
    expect(server.requests).to.have.length(0);
  });

  it('batch.timeout_secs flushes a batch below max_events while the input stays open', async () => {
    const input = new Subject<EventBatch>();
    const config = fast(tsdbConfig(server.url, { database: 'd', batch: { timeout_secs: 0.05 } }));
    const done = lastValueFrom(input.pipe(buildTsdbMetricsSink(config, testSinkContext('tsdb_metrics')), toArray()));
    input.next([counter('a', 1), counter('b', 2)]);
    await until(() => server.requests.length === 1, 10_000, 'the batch to flush on its age');
    expect(server.requests[0]!.body.split('\n')).to.have.length(2);
    input.complete();
    expect((await done).map((d) => d.events.length)).to.deep.equal([2]);
  });

  it('joins endpoint and path with exactly one slash', () => {
    expect([joinEndpoint('http://h:1', 'write'), joinEndpoint('http://h:1/', 'write'), joinEndpoint('http://h:1/base//', 'api/v2/write')]).to.deep.equal([
      'http://h:1/write',
      'http://h:1/write',
      'http://h:1/base/api/v2/write',
    ]);
  });
});

describe('connectors/sinks/tsdb_metrics: TLS and proxy', function () {
  let certs: TestCerts;
  let https: TestServer;
  let proxy: TestProxy;
  let influx: Influxdb1;
  before(async () => {
    certs = makeTestCerts();
    https = await startTestServer(() => 204, { cert: readFileSync(certs.serverCrt), key: readFileSync(certs.serverKey) });
    proxy = await startTinyproxy();
    influx = await sharedInfluxdb1();
  });
  after(async () => {
    await https.close();
    await proxy.stop();
    certs.remove();
  });

  it('tls.ca_file verifies the server; without it the unknown issuer fails; verify_certificate = false accepts it', async () => {
    const once = (tls?: Record<string, unknown>) =>
      runSink(fast(tsdbConfig(https.url, { database: 'd', ...(tls ? { tls } : {}) }), { retry_attempts: 0 }), of([counter('a', 1)])).then((ds) => ds[0]!.status);
    expect(await once()).to.equal('errored');
    expect(await once({ ca_file: certs.caCrt })).to.equal('delivered');
    expect(await once({ verify_certificate: false })).to.equal('delivered');
    expect(https.requests).to.have.length(2);
  });

  it('proxy.enabled = false bypasses the global proxy; proxy.http carries writes to the real InfluxDB through a forward proxy', async () => {
    const db = uniqueName('weir_proxy');
    await influx.createDatabase(db);
    const send = async (endpoint: string, extra: Record<string, unknown>, globals?: Record<string, unknown>) => {
      const ctx = testSinkContext('tsdb_metrics', globals ? { globals: { proxy: globals as never } } : {});
      const ds = await runSink(fast(tsdbConfig(endpoint, { database: db, ...extra }), { retry_attempts: 0 }), of([counter('proxied', 1)]), ctx);
      return ds[0]!.status;
    };
    const before = proxy.connections().length;
    // the bypassed write names the server `localhost`, the proxied one `127.0.0.1`: the log tells them apart
    expect(await send(influx.url.replace('127.0.0.1', 'localhost'), { proxy: { enabled: false } }, { enabled: true, http: proxy.url, no_proxy: [] })).to.equal('delivered');
    expect(await send(influx.url, { proxy: { http: proxy.url } })).to.equal('delivered');
    // tinyproxy logs asynchronously and in order: once the proxied write shows, the bypassed one would have
    await until(() => proxy.connections().slice(before).some((l) => l.includes('127.0.0.1')), 10_000, 'the proxy to log the write');
    expect(proxy.connections().slice(before).filter((l) => l.includes('localhost'))).to.deep.equal([]);
    expect((await influx.select(db, 'proxied')).length).to.equal(1); // same point twice: one row
  });
});
