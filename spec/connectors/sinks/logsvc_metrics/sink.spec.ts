import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import { of } from 'rxjs';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { type TestServer, startTestServer } from '../../../helpers/http-test-server.js';
import { type HumioPeer, startHumio } from '../../../peers/humio.js';
import { count, counter, gauge, metric, otherKinds } from '../../shared/hec/harness.js';
import { TOKEN, fast, logsvcConfig, runSink } from './harness.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('connectors/sinks/logsvc_metrics: against the strict LogScale HEC peer', function () {
  this.timeout(20_000);
  let humio: HumioPeer;
  beforeEach(async () => {
    humio = await startHumio({ tokens: { [TOKEN]: { repository: 'weir', parser: 'token-parser' } } });
  });
  afterEach(() => humio.close());

  it('posts every metric kind to /services/collector/event with the token; the repository holds them as log events', async () => {
    const ctx = testSinkContext('logsvc_metrics');
    const input = [counter('requests', 3, { namespace: 'app', tags: { host: 'h1', env: 'prod' } }), gauge('load', 0.5), ...otherKinds()];
    const ds = await runSink(fast(logsvcConfig(humio.url)), of(input), ctx);
    expect(count(ds, 'delivered')).to.equal(6);
    expect(humio.requests).to.have.length(1);
    const [post] = humio.requests;
    expect([post!.method, post!.path]).to.deep.equal(['POST', '/services/collector/event']);
    expect(post!.headers.authorization).to.equal(`Splunk ${TOKEN}`);
    expect(post!.headers['content-type']).to.equal('application/json');
    expect(post!.headers['x-splunk-request-channel']).to.match(GUID);
    expect(post!.raw.toString()).to.match(/^\{"event":\{"counter":\{"value":3\},"host":"h1","kind":"incremental","name":"requests","namespace":"app","tags":\{"env":"prod"\}\},"fields":\{\},"time":1700000000\.123,"host":"h1"\}\{"event":\{"gauge"/);
    expect(humio.events.map((e) => [e.repository, e.timestamp, e.host, e.parser, Object.keys(e.event as object).find((k) => !['kind', 'name', 'host', 'namespace', 'tags'].includes(k))])).to.deep.equal([
      ['weir', 1_700_000_000_123, 'h1', 'token-parser', 'counter'],
      ['weir', 1_700_000_000_123, undefined, 'token-parser', 'gauge'],
      ['weir', 1_700_000_000_123, undefined, 'token-parser', 'set'],
      ['weir', 1_700_000_000_123, undefined, 'token-parser', 'distribution'],
      ['weir', 1_700_000_000_123, undefined, 'token-parser', 'aggregated_histogram'],
      ['weir', 1_700_000_000_123, undefined, 'token-parser', 'aggregated_summary'],
    ]);
    expect(ds[0]!.bytes).to.equal(post!.raw.length);
  });

  it('event_type picks the parser, index the repository, indexed_fields with "#" become tags', async () => {
    const config = fast(logsvcConfig(humio.url, { event_type: 'metrics', index: 'weir', source: '{{ namespace }}', indexed_fields: ['#tags.env', 'name'] }));
    const ds = await runSink(config, of([counter('c', 1, { namespace: 'svc', tags: { env: 'prod' } })]));
    expect(count(ds, 'delivered')).to.equal(1);
    expect(humio.events.map((e) => [e.parser, e.source, e.tags, e.fields])).to.deep.equal([['metrics', 'svc', { 'tags.env': 'prod' }, { name: 'c' }]]);
  });

  it('timezone (over the global one) applies to strftime items of the templates', async () => {
    const ctx = testSinkContext('logsvc_metrics', { globals: { timezone: 'America/New_York' } });
    await runSink(fast(logsvcConfig(humio.url, { source: '%d %H' })), of([counter('a', 1)]), ctx);
    await runSink(fast(logsvcConfig(humio.url, { source: '%d %H', timezone: 'Asia/Tokyo' })), of([counter('a', 1)]), ctx);
    expect(humio.events.map((e) => e.source)).to.deep.equal(['14 17', '15 07']);
  });

  it('an index other than the token repository is refused with 400: rejected, counted, not retried', async () => {
    const ctx = testSinkContext('logsvc_metrics');
    const ds = await runSink(fast(logsvcConfig(humio.url, { index: 'other' })), of([counter('c', 1)]), ctx);
    expect(ds.map((d) => d.status)).to.deep.equal(['rejected']);
    expect(humio.requests).to.have.length(1);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(1);
  });

  it('an unknown token (401) is rejected, not retried', async () => {
    const ds = await runSink(fast(logsvcConfig(humio.url, { token: 'nobody' })), of([counter('c', 1)]));
    expect(ds.map((d) => d.status)).to.deep.equal(['rejected']);
    expect(humio.requests).to.have.length(1);
  });

  it('compression = "gzip": gzip body with Content-Encoding; the repository reads it', async () => {
    const ds = await runSink(fast(logsvcConfig(humio.url, { compression: 'gzip' })), of([counter('a', 1), counter('b', 2)]));
    expect(count(ds, 'delivered')).to.equal(2);
    const [post] = humio.requests;
    expect(post!.headers['content-encoding']).to.equal('gzip');
    expect(gunzipSync(post!.raw).toString()).to.contain('"name":"b"');
    expect(humio.events.map((e) => (e.event as { name: string }).name)).to.deep.equal(['a', 'b']);
  });

  it('endpoint with a trailing "/" posts to the same path', async () => {
    await runSink(fast(logsvcConfig(`${humio.url}/`)), of([counter('a', 1)]));
    expect(humio.requests.map((r) => r.path)).to.deep.equal(['/services/collector/event']);
  });

  it('request.headers are sent; they cannot replace the token', async () => {
    await runSink(fast(logsvcConfig(humio.url, { request: { headers: { 'X-Team': 'obs', authorization: 'Bearer x' } } })), of([counter('a', 1)]));
    expect(humio.requests[0]!.headers['x-team']).to.equal('obs');
    expect(humio.requests[0]!.headers.authorization).to.equal(`Splunk ${TOKEN}`);
  });

  it('batch.max_bytes (default 1,000,000) closes a batch before the envelope that would overflow it', async () => {
    const many = Array.from({ length: 12_000 }, (_, i) => counter(`metric_${i}`, i));
    const ds = await runSink(fast(logsvcConfig(humio.url)), of(many));
    expect(count(ds, 'delivered')).to.equal(12_000);
    const sizes = humio.requests.map((r) => r.raw.length);
    expect(sizes.length).to.be.greaterThan(1);
    expect(sizes.every((n) => n <= 1_000_000)).to.equal(true);
    expect(sizes[0]).to.be.greaterThan(1_000_000 - 200);
    humio.clear();
    humio.requests.length = 0;
    await runSink(fast(logsvcConfig(humio.url, { batch: { max_bytes: 250 } })), of([counter('a', 1), counter('b', 1), counter('c', 1)]));
    // each envelope is 99 bytes: two fit in 250
    expect(humio.requests.map((r) => r.raw.length)).to.deep.equal([198, 99]);
  });

  it('batch.max_events caps a batch', async () => {
    await runSink(fast(logsvcConfig(humio.url, { batch: { max_events: 2 } })), of([counter('a', 1), counter('b', 1), metric('c', { type: 'set', values: [] })]));
    expect(humio.requests).to.have.length(2);
  });
});

describe('connectors/sinks/logsvc_metrics: adaptive concurrency by default', function () {
  this.timeout(20_000);
  let server: TestServer;
  let arrivals: number[];
  beforeEach(async () => {
    arrivals = [];
    server = await startTestServer((_r, _n, inFlight) => {
      arrivals.push(inFlight);
      // long enough that requests started together are all in flight at once
      return { status: 200, body: '{"text":"Success","code":0}', delayMs: 300 };
    });
  });
  afterEach(() => server.close());
  const batches = () => of(...Array.from({ length: 3 }, (_, i) => [counter(`m${i}`, i)]));

  it('starts at one request in flight (initial_concurrency 1)', async () => {
    await runSink(fast(logsvcConfig(server.url, { batch: { max_events: 1 } })), batches());
    expect(arrivals.slice(0, 2)).to.deep.equal([1, 1]);
  });

  it('request.adaptive_concurrency.initial_concurrency sets the starting limit', async () => {
    await runSink(fast(logsvcConfig(server.url, { batch: { max_events: 1 }, request: { adaptive_concurrency: { initial_concurrency: 3 } } })), batches());
    expect(arrivals).to.deep.equal([1, 2, 3]);
  });
});
