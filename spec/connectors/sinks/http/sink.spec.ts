import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Subject, VirtualAction, VirtualTimeScheduler, of } from 'rxjs';
import { BatchNotifier, type Delivery, EventMetadata, MetricEvent, SpentLogEvent, attachNotifier, batchSize, logEvent, settleAll } from '../../../../lib/event.js';
import { Timestamp } from '../../../../lib/value.js';
import { type TestServer, startTestServer } from '../../../helpers/http-test-server.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { until } from '../../../helpers/wait.js';
import { runWeir } from '../../../helpers/weir-process.js';
import { defaultGlobals } from '../../../../lib/config/global.js';
import { buildHttpSink } from '../../../../connectors/sinks/http/sink.js';
import { count, fast, httpConfig, makeEvents, runSink } from './harness.js';

describe('connectors/sinks/http: wire format and options', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer();
  });
  afterEach(() => server.close());

  it('POSTs a JSON array by default with weir headers; one Delivery per request', async () => {
    const events = makeEvents(2);
    const ds = await runSink(httpConfig(server.url + '/in?x=1'), of(events));
    expect(server.requests).to.have.length(1);
    const r = server.requests[0]!;
    expect(r.method).to.equal('POST');
    expect(r.url).to.equal('/in?x=1');
    expect(r.body).to.equal('[{"message":"m0","i":0},{"message":"m1","i":1}]');
    expect(r.headers['content-type']).to.equal('application/json');
    expect(r.headers['user-agent']).to.match(/^weir\/\d/);
    expect(r.headers['accept-encoding']).to.equal('identity');
    expect(ds).to.have.length(1);
    expect(ds[0]!.status).to.equal('delivered');
    // nothing waits for these events' delivery: the delivery carries their sizes, not their fields
    expect(ds[0]!.events.map((e) => e.constructor)).to.deep.equal([SpentLogEvent, SpentLogEvent]);
    expect(batchSize(ds[0]!.events)).to.equal(batchSize(events));
    expect(ds[0]!.bytes).to.equal(r.raw.length);
  });

  it('a delivery carries the events themselves when they hold acknowledgement claims', async () => {
    const events = makeEvents(2);
    const settled: string[] = [];
    attachNotifier(events, new BatchNotifier((status) => settled.push(status)));
    const ds = await runSink(httpConfig(server.url), of(events));
    expect(ds[0]!.events).to.deep.equal(events);
    settleAll(ds[0]!.events, ds[0]!.status);
    expect(settled).to.deep.equal(['delivered']);
  });

  it('encoding.codec ndjson: one object per line, no trailing newline', async () => {
    await runSink(httpConfig(server.url, { encoding: { codec: 'ndjson' } }), of(makeEvents(2)));
    expect(server.requests[0]!.body).to.equal('{"message":"m0","i":0}\n{"message":"m1","i":1}');
    expect(server.requests[0]!.headers['content-type']).to.equal('application/x-ndjson');
  });

  it('encoding.codec text: the message of each event, newline after each', async () => {
    await runSink(httpConfig(server.url, { encoding: { codec: 'text' } }), of(makeEvents(2)));
    expect(server.requests[0]!.body).to.equal('m0\nm1\n');
    expect(server.requests[0]!.headers['content-type']).to.equal('text/plain');
  });

  it('encoding only_fields / except_fields / timestamp_format apply per event', async () => {
    const e = logEvent({ message: 'a', keep: 1, drop: 2, timestamp: new Timestamp(1_700_000_000_000) });
    await runSink(httpConfig(server.url, { encoding: { codec: 'ndjson', except_fields: ['drop'], timestamp_format: 'unix' } }), of([e]));
    expect(JSON.parse(server.requests[0]!.body)).to.deep.equal({ message: 'a', keep: 1, timestamp: 1_700_000_000 });
    await runSink(httpConfig(server.url, { encoding: { codec: 'ndjson', only_fields: ['keep'] } }), of([e]));
    expect(server.requests[1]!.body).to.equal('{"keep":1}');
  });

  it('payload_prefix and payload_suffix wrap the JSON array', async () => {
    await runSink(httpConfig(server.url, { payload_prefix: '{"data":', payload_suffix: '}' }), of(makeEvents(1)));
    expect(JSON.parse(server.requests[0]!.body)).to.deep.equal({ data: [{ message: 'm0', i: 0 }] });
  });

  it('method sends the configured verb', async () => {
    await runSink(httpConfig(server.url, { method: 'put' }), of(makeEvents(1)));
    await runSink(httpConfig(server.url, { method: 'patch' }), of(makeEvents(1)));
    expect(server.requests.map((r) => r.method)).to.deep.equal(['PUT', 'PATCH']);
  });

  it('headers and request.headers are sent; request.headers wins', async () => {
    await runSink(httpConfig(server.url, { headers: { 'X-A': 'top', 'X-B': 'top' }, request: { headers: { 'x-b': 'req', 'X-C': 'c' } } }), of(makeEvents(1)));
    const h = server.requests[0]!.headers;
    expect([h['x-a'], h['x-b'], h['x-c']]).to.deep.equal(['top', 'req', 'c']);
  });

  it('auth basic and bearer set Authorization; URI credentials become basic auth', async () => {
    await runSink(httpConfig(server.url, { auth: { strategy: 'basic', user: 'u', password: 'p w' } }), of(makeEvents(1)));
    await runSink(httpConfig(server.url, { auth: { strategy: 'bearer', token: 'tok' } }), of(makeEvents(1)));
    await runSink(httpConfig(server.url.replace('http://', 'http://us%40er:pa%3Ass@') + '/p'), of(makeEvents(1)));
    const auths = server.requests.map((r) => r.headers.authorization);
    expect(auths[0]).to.equal('Basic ' + Buffer.from('u:p w').toString('base64'));
    expect(auths[1]).to.equal('Bearer tok');
    expect(auths[2]).to.equal('Basic ' + Buffer.from('us@er:pa:ss').toString('base64'));
    expect(server.requests[2]!.url).to.equal('/p');
  });

  it('compression gzip: gzipped body, Content-Encoding gzip, wire bytes in the Delivery', async () => {
    const events = makeEvents(50);
    const ds = await runSink(httpConfig(server.url, { compression: 'gzip', encoding: { codec: 'ndjson' } }), of(events));
    const r = server.requests[0]!;
    expect(r.headers['content-encoding']).to.equal('gzip');
    expect(r.raw.subarray(0, 2)).to.deep.equal(Buffer.from([0x1f, 0x8b]));
    expect(r.body.split('\n')).to.have.length(50);
    expect(ds[0]!.bytes).to.equal(r.raw.length).and.be.lessThan(Buffer.byteLength(r.body));
    await runSink(httpConfig(server.url, { compression: 'none' }), of(events));
    expect(server.requests[1]!.headers['content-encoding']).to.equal(undefined);
  });

  it('batch.max_events splits requests', async () => {
    const ds = await runSink(httpConfig(server.url, { batch: { max_events: 2 }, request: { concurrency: 1 } }), of(makeEvents(5)));
    expect(server.requests.map((r) => JSON.parse(r.body).length)).to.deep.equal([2, 2, 1]);
    expect(ds.map((d) => d.events.length)).to.deep.equal([2, 2, 1]);
  });

  it('batch.max_bytes splits by encoded size and drops an event too large on its own', async () => {
    // each {"message":"mN","i":N} is 22 bytes
    const big = logEvent({ message: 'x'.repeat(100) });
    const ctx = testSinkContext('http');
    const ds = await runSink(httpConfig(server.url, { batch: { max_bytes: 50 }, request: { concurrency: 1 } }), of([...makeEvents(3), big]), ctx);
    expect(server.requests.map((r) => JSON.parse(r.body).length)).to.deep.equal([2, 1]);
    expect(count(ds, 'delivered')).to.equal(3);
    expect(ds.find((d) => d.status === 'rejected')!.events).to.deep.equal([big]);
    expect(ctx.metric('component_errors_total', { error_type: 'event_too_large' })).to.equal(1);
  });

  it('batch.timeout_secs flushes a partial batch while the input stays open', async () => {
    // the sink's timers run on the context's scheduler: virtual time, advanced by hand
    const clock = new VirtualTimeScheduler(VirtualAction, 0);
    const input = new Subject<ReturnType<typeof makeEvents>>();
    const ds: unknown[] = [];
    const sub = input.pipe(buildHttpSink(httpConfig(server.url, { batch: { timeout_secs: 0.05 } }), testSinkContext('http', { scheduler: clock }))).subscribe((d) => ds.push(d));
    input.next(makeEvents(2));
    clock.maxFrames = 49;
    clock.flush();
    await new Promise((r) => setImmediate(r));
    expect(server.requests).to.have.length(0);
    clock.maxFrames = 50;
    clock.flush();
    await until(() => ds.length === 1, 20_000, 'the age flush');
    expect(JSON.parse(server.requests[0]!.body)).to.have.length(2);
    sub.unsubscribe();
  });

  it('keeps connections alive between requests', async () => {
    await runSink(httpConfig(server.url, { batch: { max_events: 1 }, request: { concurrency: 1 } }), of(...Array.from({ length: 10 }, (_, i) => makeEvents(1, i))));
    expect(server.requests).to.have.length(10);
    // the pool may open a second socket while the first is still finishing its response
    expect(server.connections).to.be.at.most(2);
  });

  it('encodes metric events in the Vector JSON form', async () => {
    const m = new MetricEvent('hits', 'incremental', { type: 'counter', value: 2 }, new EventMetadata('s', 't'), undefined, { code: '200' });
    await runSink(httpConfig(server.url, { encoding: { codec: 'ndjson' } }), of([m]));
    expect(JSON.parse(server.requests[0]!.body)).to.deep.equal({ name: 'hits', tags: { code: '200' }, kind: 'incremental', counter: { value: 2 } });
  });

  it('request.concurrency: fixed N and none = 1 bound the requests in flight', async () => {
    server.reply = () => ({ status: 200, delayMs: 40 });
    const batches = of(...Array.from({ length: 8 }, (_, i) => makeEvents(1, i)));
    await runSink(httpConfig(server.url, { batch: { max_events: 1 }, request: { concurrency: 3 } }), batches);
    expect(server.maxInFlight).to.equal(3);
    const one = await startTestServer(() => ({ status: 200, delayMs: 20 }));
    try {
      await runSink(httpConfig(one.url, { batch: { max_events: 1 }, request: { concurrency: 'none' } }), of(...Array.from({ length: 4 }, (_, i) => makeEvents(1, i))));
      expect(one.maxInFlight).to.equal(1);
      expect(one.requests).to.have.length(4);
    } finally {
      await one.close();
    }
  });

  it('closes ctx.demand while at the concurrency limit with the next batch built', async () => {
    server.reply = () => ({ status: 200, delayMs: 100 });
    const ctx = testSinkContext('http');
    const input = new Subject<ReturnType<typeof makeEvents>>();
    const sub = input.pipe(buildHttpSink(httpConfig(server.url, { batch: { max_events: 1 }, request: { concurrency: 1 } }), ctx)).subscribe();
    input.next(makeEvents(1));
    await until(() => server.requests.length === 1, 2000);
    // one request out: the next batch may still build
    expect(ctx.demand.isOpen).to.equal(true);
    input.next(makeEvents(1));
    expect(ctx.demand.isOpen).to.equal(false);
    await until(() => ctx.demand.isOpen, 2000, 'demand to reopen');
    sub.unsubscribe();
  });

  it('request.rate_limit_num per rate_limit_duration_secs spaces request starts', async () => {
    server.reply = () => 200;
    // the rate limiter's window runs on the context's scheduler: virtual time, advanced by hand
    const clock = new VirtualTimeScheduler(VirtualAction, 0);
    const ds: Delivery[] = [];
    of(...Array.from({ length: 3 }, (_, i) => makeEvents(1, i)))
      .pipe(buildHttpSink(httpConfig(server.url, { batch: { max_events: 1 }, request: { concurrency: 10, rate_limit_num: 2, rate_limit_duration_secs: 1 } }), testSinkContext('http', { scheduler: clock })))
      .subscribe((d) => ds.push(d));
    // the first two share the first window; the third waits for the next one
    await until(() => server.requests.length === 2, 20_000, 'the first two requests');
    clock.maxFrames = 999;
    clock.flush();
    await until(() => ds.length === 2, 20_000, 'the first two deliveries');
    expect(server.requests).to.have.length(2);
    clock.maxFrames = 1000;
    await until(() => (clock.flush(), server.requests.length === 3), 20_000, 'the third request');
    expect(clock.now()).to.equal(1000);
    await until(() => ds.length === 3, 20_000, 'the third delivery');
  });

  it('adaptive concurrency publishes its gauges', async () => {
    const ctx = testSinkContext('http');
    // a round trip on loopback can take under a millisecond: answers wait a little so the RTT shows
    server.reply = () => ({ status: 200, delayMs: 3 });
    await runSink(httpConfig(server.url, { batch: { max_events: 1 } }), of(...Array.from({ length: 20 }, (_, i) => makeEvents(1, i))), ctx);
    expect(ctx.metric('adaptive_concurrency_limit')).to.be.at.least(1);
    expect(ctx.metric('adaptive_concurrency_in_flight')).to.equal(0);
    expect(ctx.metric('adaptive_concurrency_observed_rtt')).to.be.greaterThan(0);
    expect(ctx.metric('adaptive_concurrency_averaged_rtt')).to.be.greaterThan(0);
  });

  it('request.timeout_secs aborts an attempt that stalls', async () => {
    server.reply = (_r, n) => (n === 0 ? 'stall' : 200);
    const clock = new VirtualTimeScheduler(VirtualAction, 0);
    const ds: Delivery[] = [];
    of(makeEvents(1))
      .pipe(buildHttpSink(fast(httpConfig(server.url), { timeout_secs: 0.15 }), testSinkContext('http', { scheduler: clock })))
      .subscribe((d) => ds.push(d));
    await until(() => server.requests.length === 1, 20_000, 'the first attempt');
    clock.maxFrames = 149;
    clock.flush();
    await new Promise((r) => setImmediate(r));
    expect(server.requests).to.have.length(1);
    // at 150 ms the attempt is aborted; the retry follows after its backoff (10 ms), before its
    // own timeout (at 310 ms) could abort it
    clock.maxFrames = 300;
    await until(() => (clock.flush(), server.requests.length === 2), 20_000, 'the retry');
    expect(clock.now()).to.be.within(150, 200);
    await until(() => ds.length === 1, 20_000, 'the delivery');
    expect(ds[0]!.status).to.equal('delivered');
  });
});

describe('connectors/sinks/http: the global log_schema', () => {
  it('log_schema.message_key names the field the text codec sends, as in the stream sinks (daemon)', async () => {
    const server = await startTestServer();
    const dir = mkdtempSync(join(tmpdir(), 'weir-http-schema-'));
    const cfg = join(dir, 'p.toml');
    writeFileSync(
      cfg,
      `[log_schema]\nmessage_key = "msg"\n\n[sources.in]\ntype = "stdin"\n\n` +
        `[sinks.out]\ntype = "http"\ninputs = ["in"]\nuri = "${server.url}/logs"\nencoding.codec = "text"\n`,
    );
    try {
      const r = await runWeir(['--config', cfg], { input: 'first line\nsecond line\n' });
      expect(r.code, r.stderr).to.equal(0);
      expect(server.requests.map((q) => q.body).join('')).to.equal('first line\nsecond line\n');
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the message field of log_schema is what an event carries under message_key (unit)', async () => {
    const server = await startTestServer();
    try {
      const ctx = testSinkContext('http', { globals: { log_schema: { ...defaultGlobals().log_schema, message_key: 'msg' } } });
      await runSink(httpConfig(server.url, { encoding: { codec: 'text' } }), of([logEvent({ msg: 'from msg', message: 'not this' })]), ctx);
      expect(server.requests[0]!.body).to.equal('from msg\n');
    } finally {
      await server.close();
    }
  });
});
