import { expect } from 'chai';
import { Subject, lastValueFrom, of, toArray } from 'rxjs';
import { gunzipSync } from 'node:zlib';
import { buildSiemHecMetricsSink } from '../../../../connectors/sinks/siem_hec_metrics/sink.js';
import type { Delivery, EventBatch } from '../../../../lib/event.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { until } from '../../../helpers/wait.js';
import { type HecPeer, startHec } from '../../../peers/hec.js';
import { Clock, count, counter, gauge, namesWith, otherKinds } from '../../shared/hec/harness.js';
import { TOKEN, fast, runSink, siemConfig } from './harness.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const eventPosts = (peer: HecPeer) => peer.requests.filter((r) => r.path === '/services/collector/event');
const ackPosts = (peer: HecPeer) => peer.requests.filter((r) => r.path === '/services/collector/ack');

describe('connectors/sinks/siem_hec_metrics: against the strict HEC peer', function () {
  this.timeout(20_000);
  let hec: HecPeer;
  beforeEach(async () => {
    hec = await startHec({ tokens: { [TOKEN]: { acks: true }, plain: { acks: false }, scoped: { acks: false, indexes: ['metrics'] } } });
  });
  afterEach(() => hec.close());

  it('posts counters and gauges to /services/collector/event with the token, JSON and one channel UUID; the collector indexes them', async () => {
    const ctx = testSinkContext('siem_hec_metrics');
    const ds = await runSink(fast(siemConfig(hec.url, { batch: { max_events: 2 } })), of([counter('a', 1, { tags: { host: 'h1' } }), gauge('b', 2.5), counter('c', 3)]), ctx);
    expect(count(ds, 'delivered')).to.equal(3);
    const posts = eventPosts(hec);
    expect(posts).to.have.length(2);
    for (const p of posts) {
      expect(p.method).to.equal('POST');
      expect(p.headers.authorization).to.equal(`Splunk ${TOKEN}`);
      expect(p.headers['content-type']).to.equal('application/json');
      expect(p.headers['content-encoding']).to.equal(undefined);
      expect(p.headers['user-agent']).to.match(/^weir\//);
      expect(p.headers['x-splunk-request-channel']).to.match(GUID);
    }
    // the channel is created once per sink, and ack queries name it too
    const channel = posts[0]!.headers['x-splunk-request-channel'];
    expect(posts[1]!.headers['x-splunk-request-channel']).to.equal(channel);
    for (const q of ackPosts(hec)) {
      expect(q.headers['x-splunk-request-channel']).to.equal(channel);
      expect(q.query.get('channel')).to.equal(channel);
    }
    expect(posts[0]!.raw.toString()).to.equal(
      '{"event":"metric","fields":{"_value":1,"host":"h1","metric_name":"a"},"time":1700000000.123,"host":"h1"}{"event":"metric","fields":{"_value":2.5,"metric_name":"b"},"time":1700000000.123}',
    );
    expect(hec.metrics.map((m) => [m.name, m.value, m.host])).to.deep.equal([
      ['a', 1, 'h1'],
      ['b', 2.5, undefined],
      ['c', 3, undefined],
    ]);
    expect(hec.droppedMetrics).to.deep.equal([]);
    // the bytes on the wire, per request
    expect(ds.reduce((n, d) => n + d.bytes, 0)).to.equal(posts.reduce((n, p) => n + p.raw.length, 0));
    expect(ctx.metric('requests_received_total')).to.equal(posts.length + ackPosts(hec).length);
  });

  it('a second sink instance has its own channel', async () => {
    await runSink(fast(siemConfig(hec.url)), of([counter('a', 1)]));
    await runSink(fast(siemConfig(hec.url)), of([counter('a', 1)]));
    const [a, b] = eventPosts(hec).map((p) => p.headers['x-splunk-request-channel']);
    expect(a).to.not.equal(b);
  });

  it('metrics of other types are rejected one by one and counted; the rest of the batch goes out', async () => {
    const ctx = testSinkContext('siem_hec_metrics');
    const ds = await runSink(fast(siemConfig(hec.url)), of([counter('ok1', 1), ...otherKinds(), gauge('ok2', 2)]), ctx);
    expect(namesWith(ds, 'delivered')).to.deep.equal(['ok1', 'ok2']);
    expect(namesWith(ds, 'rejected')).to.deep.equal(['d', 'h', 'q', 's']);
    expect(ctx.metric('component_errors_total', { error_type: 'encoder_failed' })).to.equal(4);
    expect(hec.metrics.map((m) => m.name)).to.deep.equal(['ok1', 'ok2']);
    // the exact body: nothing of the refused types, not even an empty envelope
    expect(eventPosts(hec).map((p) => p.raw.toString())).to.deep.equal([
      '{"event":"metric","fields":{"_value":1,"metric_name":"ok1"},"time":1700000000.123}{"event":"metric","fields":{"_value":2,"metric_name":"ok2"},"time":1700000000.123}',
    ]);
  });

  it('compression = "gzip": gzip body with Content-Encoding, Content-Type still JSON; acks are queried uncompressed', async () => {
    const ds = await runSink(fast(siemConfig(hec.url, { compression: 'gzip' })), of([counter('a', 1), counter('b', 2)]));
    expect(count(ds, 'delivered')).to.equal(2);
    const [post] = eventPosts(hec);
    expect(post!.headers['content-encoding']).to.equal('gzip');
    expect(post!.headers['content-type']).to.equal('application/json');
    expect(gunzipSync(post!.raw).toString()).to.match(/^\{"event":"metric","fields":\{"_value":1,"metric_name":"a"\}.*\}\{"event":"metric".*"metric_name":"b"/);
    expect(ds[0]!.bytes).to.equal(post!.raw.length);
    const [query] = ackPosts(hec);
    expect(query!.headers['content-encoding']).to.equal(undefined);
    expect(JSON.parse(query!.raw.toString())).to.deep.equal({ acks: [0] });
  });

  it('endpoint: a trailing "/" is dropped and a path prefix is kept', async () => {
    await runSink(fast(siemConfig(`${hec.url}/`)), of([counter('a', 1)]));
    await runSink(fast(siemConfig(`${hec.url}/hec-proxy/`), { retry_attempts: 0 }), of([counter('a', 1)]));
    expect(hec.requests.map((r) => [r.method, r.path]).filter(([, p]) => !p!.endsWith('/ack'))).to.deep.equal([
      ['POST', '/services/collector/event'],
      ['POST', '/hec-proxy/services/collector/event'],
    ]);
  });

  it('index, source and sourcetype reach the collector; an index the token may not write is refused (400, not retried)', async () => {
    const ds = await runSink(fast(siemConfig(hec.url, { default_token: 'plain', index: '{{ tags.idx }}', source: 'weir', sourcetype: 'metrics-{{ name }}' })), of([counter('a', 1, { tags: { idx: 'metrics', env: 'x' } })]));
    expect(count(ds, 'delivered')).to.equal(1);
    expect(hec.metrics.map((m) => [m.index, m.source, m.sourcetype, m.dimensions])).to.deep.equal([['metrics', 'weir', 'metrics-a', { env: 'x' }]]);
    const ctx = testSinkContext('siem_hec_metrics');
    const refused = await runSink(fast(siemConfig(hec.url, { default_token: 'scoped', index: 'main' })), of([counter('a', 1)]), ctx);
    expect(refused.map((d) => d.status)).to.deep.equal(['rejected']);
    expect(eventPosts(hec)).to.have.length(2);
    expect(ctx.metric('http_request_errors_total')).to.equal(1);
  });

  it('request.headers are sent; they cannot replace the token or the channel', async () => {
    await runSink(fast(siemConfig(hec.url, { request: { headers: { 'X-Team': 'obs', Authorization: 'Splunk other', 'Content-Type': 'application/json; charset=utf-8' } } })), of([counter('a', 1)]));
    const [post] = eventPosts(hec);
    expect(post!.headers['x-team']).to.equal('obs');
    expect(post!.headers['content-type']).to.equal('application/json; charset=utf-8');
    expect(post!.headers.authorization).to.equal(`Splunk ${TOKEN}`);
  });

  it('strftime items in the templates use the global timezone', async () => {
    const ctx = testSinkContext('siem_hec_metrics', { globals: { timezone: 'Asia/Tokyo' } });
    await runSink(fast(siemConfig(hec.url, { default_token: 'plain', source: '%Y-%m-%d %H' })), of([counter('a', 1)]), ctx);
    expect(hec.metrics.map((m) => m.source)).to.deep.equal(['2023-11-15 07']);
  });

  it('batch.max_bytes closes a batch before the envelope that would overflow it', async () => {
    // each envelope here is 80 bytes
    const ds = await runSink(fast(siemConfig(hec.url, { batch: { max_bytes: 170 } })), of([counter('a', 1), counter('b', 1), counter('c', 1), counter('d', 1), counter('e', 1)]));
    expect(count(ds, 'delivered')).to.equal(5);
    expect(eventPosts(hec).map((p) => p.raw.length)).to.deep.equal([160, 160, 80]);
  });

  it('batch.timeout_secs flushes a partial batch once its oldest metric is that old (virtual time)', async () => {
    const clock = new Clock();
    const ctx = testSinkContext('siem_hec_metrics', { scheduler: clock.scheduler });
    const input = new Subject<EventBatch>();
    const out: Delivery[] = [];
    const done = lastValueFrom(input.pipe(buildSiemHecMetricsSink(fast(siemConfig(hec.url, { acknowledgements: { indexer_acknowledgements_enabled: false }, batch: { timeout_secs: 5 } })), ctx), toArray())).then((ds) => out.push(...ds));
    input.next([counter('a', 1)]);
    await clock.advance(4_999);
    expect(eventPosts(hec)).to.have.length(0);
    await clock.advance(1);
    await until(() => eventPosts(hec).length === 1, 5_000, 'the flushed batch');
    input.complete();
    await done;
    expect(count(out, 'delivered')).to.equal(1);
  });
});

describe('connectors/sinks/siem_hec_metrics: indexer acknowledgements against the peer', function () {
  this.timeout(20_000);
  let hec: HecPeer;
  beforeEach(async () => {
    hec = await startHec({ tokens: { [TOKEN]: { acks: true }, plain: { acks: false } } });
  });
  afterEach(() => hec.close());

  it('acked late: delivered once the collector reports the id, after the queries it took', async () => {
    hec.setAckMode({ afterQueries: 2 });
    const ds = await runSink(fast(siemConfig(hec.url)), of([counter('a', 1)]));
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    expect(hec.ackQueries.map((q) => q.acks)).to.deep.equal([[0], [0], [0]]);
  });

  it('never acked: errored after exactly retry_limit queries, counted; the collector did receive the metric', async () => {
    hec.setAckMode({ never: true });
    const ctx = testSinkContext('siem_hec_metrics');
    const ds = await runSink(fast(siemConfig(hec.url), {}, { retry_limit: 4 }), of([counter('a', 1), counter('b', 2)]), ctx);
    expect(ds.map((d) => [d.status, d.events.length, d.bytes])).to.deep.equal([['errored', 2, 0]]);
    expect(hec.ackQueries).to.have.length(4);
    expect(hec.metrics).to.have.length(2);
    expect(ctx.metric('component_errors_total', { error_type: 'acknowledgement_failed' })).to.equal(1);
  });

  it('an ack id the collector lost fails its batch only', async () => {
    hec.setAckMode({ lose: (id) => id === 1 });
    const ds = await runSink(fast(siemConfig(hec.url, { batch: { max_events: 1 } }), { concurrency: 1 }, { retry_limit: 3 }), of([counter('a', 1), counter('b', 2), counter('c', 3)]));
    expect(namesWith(ds, 'delivered')).to.deep.equal(['a', 'c']);
    expect(namesWith(ds, 'errored')).to.deep.equal(['b']);
  });

  it('indexer_acknowledgements_enabled = false: a 2xx delivers, no query is made, the channel is still sent', async () => {
    hec.setAckMode({ never: true });
    const ds = await runSink(fast(siemConfig(hec.url, { acknowledgements: { indexer_acknowledgements_enabled: false } })), of([counter('a', 1)]));
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    expect(ackPosts(hec)).to.have.length(0);
    expect(eventPosts(hec)[0]!.headers['x-splunk-request-channel']).to.match(GUID);
  });

  it('a token without indexer acknowledgement answers without an id: the 2xx delivers, nothing is queried', async () => {
    const ds = await runSink(fast(siemConfig(hec.url, { default_token: 'plain' })), of([counter('a', 1)]));
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    expect(ackPosts(hec)).to.have.length(0);
  });

  it('max_pending_acks: with that many batches awaiting acks the next is not sent (backpressure), and goes once one settles', async () => {
    hec.setAckMode({ afterQueries: 1_000_000 });
    const input = new Subject<EventBatch>();
    const out: Delivery[] = [];
    const config = fast(siemConfig(hec.url, { batch: { max_events: 1 } }), { concurrency: 4 }, { max_pending_acks: 2, retry_limit: 1_000_000 });
    const done = lastValueFrom(input.pipe(buildSiemHecMetricsSink(config, testSinkContext('siem_hec_metrics')), toArray())).then((ds) => out.push(...ds));
    input.next([counter('a', 1), counter('b', 2), counter('c', 3), counter('d', 4)]);
    await until(() => eventPosts(hec).length === 2 && hec.ackQueries.length >= 3, 5_000, 'two posts awaiting acks');
    expect(eventPosts(hec)).to.have.length(2);
    // the collector now acknowledges: the waiting batches go out one by one as slots free up
    hec.setAckMode({});
    input.complete();
    await done;
    expect(count(out, 'delivered')).to.equal(4);
    expect(eventPosts(hec)).to.have.length(4);
  });

  it('query_interval: the collector is asked exactly every that many seconds (virtual time)', async () => {
    hec.setAckMode({ afterQueries: 1 });
    const clock = new Clock();
    const ctx = testSinkContext('siem_hec_metrics', { scheduler: clock.scheduler });
    const input = new Subject<EventBatch>();
    const out: Delivery[] = [];
    const config = siemConfig(hec.url, { acknowledgements: { query_interval: 7 }, batch: { timeout_secs: 1 } });
    const done = lastValueFrom(input.pipe(buildSiemHecMetricsSink(config, ctx), toArray())).then((ds) => out.push(...ds));
    input.next([counter('a', 1)]);
    await clock.advanceTo(999);
    expect(eventPosts(hec)).to.have.length(0);
    await clock.advanceTo(1_000);
    // the answer (with its ack id) reached the sink; the poller starts at this virtual time
    await until(() => ctx.metric('requests_received_total') === 1, 5_000, 'the answer to the event request');
    await clock.settle();
    input.complete();
    // the ack id arrived at 1 s: the first query is due at 8 s
    await clock.advanceTo(7_999);
    expect(hec.ackQueries).to.have.length(0);
    await clock.advanceTo(8_000);
    await until(() => ctx.metric('requests_received_total') === 2, 5_000, 'the answer to the first query');
    expect(hec.ackQueries).to.have.length(1);
    await clock.settle();
    await clock.advanceTo(14_999);
    expect(hec.ackQueries).to.have.length(1);
    expect(out).to.have.length(0);
    await clock.advanceTo(15_000);
    await done;
    expect(hec.ackQueries).to.have.length(2);
    expect(out.map((d) => d.status)).to.deep.equal(['delivered']);
  });

  it('a batch given up before its answer (a 400) frees its slot: max_pending_acks = 1 does not stall', async () => {
    hec.fault = (r, n) => (r.path === '/services/collector/event' && n === 0 ? { status: 400, body: '{"text":"Invalid data format","code":6}' } : undefined);
    const ds = await runSink(fast(siemConfig(hec.url, { batch: { max_events: 1 } }), { concurrency: 1 }, { max_pending_acks: 1 }), of([counter('a', 1), counter('b', 2), counter('c', 3)]));
    expect(namesWith(ds, 'rejected')).to.deep.equal(['a']);
    expect(namesWith(ds, 'delivered')).to.deep.equal(['b', 'c']);
  });
});
