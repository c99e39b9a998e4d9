import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { Subject, of } from 'rxjs';
import type { EventBatch } from '../../../../lib/event.js';
import { USER_AGENT } from '../../../../lib/net/http-client.js';
import { type TestCerts, makeTestCerts } from '../../../helpers/certs.js';
import { type TestServer, startTestServer } from '../../../helpers/http-test-server.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { type TestProxy, startTinyproxy } from '../../../helpers/tinyproxy.js';
import { until } from '../../../helpers/wait.js';
import { type LokiPeer, startLoki } from '../../../peers/loki.js';
import { atNs, count, decodeProtobuf, fast, log, lsConfig, runSink } from './harness.js';

const lines = (loki: LokiPeer) => loki.entries.map((e) => e.line);
const messages = (loki: LokiPeer) => loki.entries.map((e) => (JSON.parse(e.line) as { message: string }).message);

describe('connectors/sinks/labelstore: delivery to the strict store', () => {
  let loki: LokiPeer;
  afterEach(() => loki?.close());

  describe('wire forms', () => {
    beforeEach(async () => {
      loki = await startLoki();
    });

    it('snappy (default): protobuf in raw snappy to <endpoint>/loki/api/v1/push, with the store reading labels, times and lines', async () => {
      const ds = await runSink(fast(lsConfig(loki.url, { labels: { app: '{{ app }}', env: 'prod' } })), of([log('a', 0), log('b', 5, { app: 'db' })]));
      expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([['delivered', 2]]);
      expect(loki.entries.map((e) => [e.tenant, e.stream, e.ts, e.line])).to.deep.equal([
        [undefined, '{app="web", env="prod"}', atNs(0), '{"message":"a","app":"web"}'],
        [undefined, '{app="db", env="prod"}', atNs(5), '{"message":"b","app":"db"}'],
      ]);
      const req = loki.requests[0]!;
      expect([req.method, req.path]).to.deep.equal(['POST', '/loki/api/v1/push']);
      expect(req.headers).to.include({ 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'user-agent': USER_AGENT });
      expect(req.headers).to.not.have.property('x-scope-orgid');
      expect(ds[0]!.bytes).to.equal(req.raw.length);
    });

    it('none: the JSON form, uncompressed', async () => {
      await runSink(fast(lsConfig(loki.url, { compression: 'none' })), of([log('a', 1)]));
      const req = loki.requests[0]!;
      expect(req.headers['content-type']).to.equal('application/json');
      expect(req.headers).to.not.have.property('content-encoding');
      expect(JSON.parse(req.raw.toString())).to.deep.equal({ streams: [{ stream: { app: 'web' }, values: [[String(atNs(1)), '{"message":"a","app":"web"}']] }] });
      expect(loki.entries.map((e) => [e.stream, e.ts])).to.deep.equal([['{app="web"}', atNs(1)]]);
    });

    it('gzip: the JSON form, gzipped', async () => {
      await runSink(fast(lsConfig(loki.url, { compression: 'gzip' })), of([log('a', 1)]));
      expect(loki.requests[0]!.headers).to.include({ 'content-type': 'application/json', 'content-encoding': 'gzip' });
      expect(lines(loki)).to.deep.equal(['{"message":"a","app":"web"}']);
    });

    it('label values with quotes, backslashes and line breaks reach the store unchanged, in both forms', async () => {
      const value = 'a "quoted" \\ value\nnext';
      for (const compression of ['snappy', 'none'] as const) {
        loki.clear();
        const ds = await runSink(fast(lsConfig(loki.url, { compression, labels: { v: '{{ v }}' } })), of([log('x', 0, { v: value })]));
        expect(ds[0]!.status, compression).to.equal('delivered');
        expect(loki.entries[0]!.labels, compression).to.deep.equal({ v: value });
      }
    });

    it('remove_label_fields and remove_timestamp shape the stored line', async () => {
      await runSink(fast(lsConfig(loki.url, { remove_label_fields: true, remove_timestamp: false })), of([log('a', 0)]));
      expect(lines(loki)).to.deep.equal([`{"message":"a","timestamp":"${new Date(1_700_000_000_000).toISOString().replace('.000Z', '.000000011Z')}"}`]);
    });

    it('sends an event without a timestamp at the time it entered the sink', async () => {
      const ctx = testSinkContext('labelstore');
      const now = ctx.scheduler.now();
      await runSink(fast(lsConfig(loki.url)), of([log('a', null)]), ctx);
      const ts = loki.entries[0]!.ts;
      expect(ts >= BigInt(now) * 1_000_000n && ts <= BigInt(ctx.scheduler.now()) * 1_000_000n).to.equal(true);
    });

    it('encoding.codec text sends the message alone', async () => {
      await runSink(fast(lsConfig(loki.url, { encoding: { codec: 'text' } })), of([log('plain line', 0)]));
      expect(lines(loki)).to.deep.equal(['plain line']);
    });
  });

  describe('tenants and auth', () => {
    it('tenant_id: one request per tenant, each with X-Scope-OrgID; a tenant that does not render rejects its event alone', async () => {
      loki = await startLoki({ requireTenant: true });
      const ctx = testSinkContext('labelstore');
      const ds = await runSink(fast(lsConfig(loki.url, { tenant_id: 'team-{{ team }}' })), of([log('a1', 0, { team: 'a' }), log('b1', 1, { team: 'b' }), log('none', 2), log('a2', 3, { team: 'a' })]), ctx);
      expect(count(ds, 'delivered')).to.equal(3);
      expect(count(ds, 'rejected')).to.equal(1);
      expect(loki.requests.map((r) => r.headers['x-scope-orgid']).sort()).to.deep.equal(['team-a', 'team-b']);
      expect(loki.entries.map((e) => [e.tenant, (JSON.parse(e.line) as { message: string }).message]).sort()).to.deep.equal([
        ['team-a', 'a1'],
        ['team-a', 'a2'],
        ['team-b', 'b1'],
      ]);
      expect(ctx.metric('component_errors_total', { error_type: 'template_failed' })).to.equal(1);
    });

    it('without tenant_id a multi-tenant store refuses the push (401): rejected, not retried', async () => {
      loki = await startLoki({ requireTenant: true });
      const ds = await runSink(fast(lsConfig(loki.url)), of([log('a', 0)]));
      expect(ds.map((d) => d.status)).to.deep.equal(['rejected']);
      expect(loki.requests).to.have.length(1);
    });

    it('auth basic and bearer, and endpoint credentials as basic auth; wrong credentials are rejected once', async () => {
      loki = await startLoki({ auth: { user: 'u', password: 'p w' } });
      expect((await runSink(fast(lsConfig(loki.url, { auth: { strategy: 'basic', user: 'u', password: 'p w' } })), of([log('basic', 0)])))[0]!.status).to.equal('delivered');
      const withCreds = loki.url.replace('http://', 'http://u:p%20w@');
      expect((await runSink(fast(lsConfig(withCreds)), of([log('uri', 1)])))[0]!.status).to.equal('delivered');
      expect((await runSink(fast(lsConfig(loki.url, { auth: { strategy: 'basic', user: 'u', password: 'nope' } })), of([log('wrong', 2)])))[0]!.status).to.equal('rejected');
      expect(messages(loki)).to.deep.equal(['basic', 'uri']);
      expect(loki.requests).to.have.length(3);
      await loki.close();
      loki = await startLoki({ auth: { token: 'tok' } });
      expect((await runSink(fast(lsConfig(loki.url, { auth: { strategy: 'bearer', token: 'tok' } })), of([log('bearer', 0)])))[0]!.status).to.equal('delivered');
      expect(loki.requests[0]!.headers.authorization).to.equal('Bearer tok');
    });
  });

  describe('out_of_order_action against a store before 2.4 (refuses older entries per stream)', () => {
    beforeEach(async () => {
      loki = await startLoki({ rejectOutOfOrder: true });
    });
    // two requests: the second carries one entry older than the newest of the first
    const input = () => of([log('a', 10), log('b', 20)], [log('late', 15), log('c', 30)]);
    const twoRequests = (extra: Record<string, unknown>) => fast(lsConfig(loki.url, { batch: { max_events: 2 }, ...extra }));

    it('drop (default): the late entry is dropped before sending, counted, and the store refuses nothing', async () => {
      const ctx = testSinkContext('labelstore');
      const ds = await runSink(twoRequests({}), input(), ctx);
      expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([
        ['delivered', 2],
        ['rejected', 1],
        ['delivered', 1],
      ]);
      expect(messages(loki)).to.deep.equal(['a', 'b', 'c']);
      expect(loki.requests).to.have.length(2);
      expect(ctx.metric('component_errors_total', { error_type: 'out_of_order' })).to.equal(1);
      expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(0);
    });

    it('rewrite_timestamp: the late entry is stored at the newest time of its stream', async () => {
      const ctx = testSinkContext('labelstore');
      const ds = await runSink(twoRequests({ out_of_order_action: 'rewrite_timestamp' }), input(), ctx);
      expect(count(ds, 'delivered')).to.equal(4);
      expect(loki.entries.map((e) => [(JSON.parse(e.line) as { message: string }).message, e.ts])).to.deep.equal([
        ['a', atNs(10)],
        ['b', atNs(20)],
        ['late', atNs(20)],
        ['c', atNs(30)],
      ]);
      expect(ctx.metric('rewritten_timestamp_events_total')).to.equal(1);
    });

    it('accept: the store answers 400 "entry out of order"; the request is rejected, counted and not retried', async () => {
      const ctx = testSinkContext('labelstore');
      const ds = await runSink(twoRequests({ out_of_order_action: 'accept' }), input(), ctx);
      expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([
        ['delivered', 2],
        ['rejected', 2],
      ]);
      expect(loki.requests).to.have.length(2);
      expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(1);
      // the store keeps the entries that were in order
      expect(messages(loki)).to.deep.equal(['a', 'b', 'c']);
    });

    it('streams are ordered apart: an older entry on another stream is not out of order', async () => {
      const ds = await runSink(twoRequests({}), of([log('a', 10), log('b', 20)], [log('other', 1, { app: 'db' })]));
      expect(count(ds, 'delivered')).to.equal(3);
      expect(loki.entries.map((e) => e.stream)).to.deep.equal(['{app="web"}', '{app="web"}', '{app="db"}']);
    });

    it('events of one request arriving out of order are sorted, not dropped', async () => {
      const ds = await runSink(fast(lsConfig(loki.url)), of([log('c', 30), log('a', 10), log('b', 20)]));
      expect(count(ds, 'delivered')).to.equal(3);
      expect(messages(loki)).to.deep.equal(['a', 'b', 'c']);
    });
  });

  describe('out_of_order_action accept against a store 2.4 or newer', () => {
    it('everything is stored at its own time', async () => {
      loki = await startLoki();
      const ds = await runSink(fast(lsConfig(loki.url, { batch: { max_events: 2 }, out_of_order_action: 'accept' })), of([log('a', 10), log('b', 20)], [log('late', 15)]));
      expect(count(ds, 'delivered')).to.equal(3);
      expect(loki.entries.map((e) => e.ts)).to.deep.equal([atNs(10), atNs(20), atNs(15)]);
    });
  });

  describe('batches', () => {
    beforeEach(async () => {
      loki = await startLoki();
    });

    it('batch.max_events bounds the entries per request', async () => {
      await runSink(fast(lsConfig(loki.url, { batch: { max_events: 2 } })), of(Array.from({ length: 5 }, (_, i) => log(`m${i}`, i))));
      expect(loki.requests.map((r) => decodeProtobuf(r.raw)[0]!.entries.length)).to.deep.equal([2, 2, 1]);
    });

    it('batch.max_bytes bounds the line bytes per request', async () => {
      // each line is 27 bytes: {"message":"mN","app":"web"}
      await runSink(fast(lsConfig(loki.url, { batch: { max_bytes: 60 } })), of(Array.from({ length: 5 }, (_, i) => log(`m${i}`, i))));
      expect(loki.requests.map((r) => decodeProtobuf(r.raw)[0]!.entries.length)).to.deep.equal([2, 2, 1]);
    });

    it('batch.timeout_secs flushes a batch while the input is still open', async () => {
      const input = new Subject<EventBatch>();
      const done = runSink(fast(lsConfig(loki.url, { batch: { timeout_secs: 0.05 } })), input);
      input.next([log('a', 0)]);
      await until(() => loki.entries.length === 1, 5_000, 'the timed-out batch');
      expect(loki.requests).to.have.length(1);
      input.complete();
      await done;
    });
  });

  describe('endpoint, path, concurrency, TLS and proxy (generic HTTP server)', () => {
    let server: TestServer;
    afterEach(() => server?.close());

    it('path is appended to the endpoint path with one slash between', async () => {
      server = await startTestServer(() => 204);
      await runSink(fast(lsConfig(`${server.url}/base/`, { path: 'custom/push' })), of([log('a', 0)]));
      await runSink(fast(lsConfig(`${server.url}/base`, { path: '/custom/push' })), of([log('a', 0)]));
      expect(server.requests.map((r) => r.url)).to.deep.equal(['/base/custom/push', '/base/custom/push']);
    });

    it('accept runs requests with the configured concurrency; drop with one at a time whatever is configured', async () => {
      server = await startTestServer(() => ({ status: 204, delayMs: 20 }));
      const batches = () => of(...Array.from({ length: 8 }, (_, i) => [log(`m${i}`, i)]));
      await runSink(fast(lsConfig(server.url, { out_of_order_action: 'accept', batch: { max_events: 1 }, request: { concurrency: 4 } })), batches());
      expect(server.maxInFlight).to.be.greaterThan(1);
      await server.close();
      server = await startTestServer(() => ({ status: 204, delayMs: 20 }));
      const ds = await runSink(fast(lsConfig(server.url, { batch: { max_events: 1 }, request: { concurrency: 4 } })), batches());
      expect(count(ds, 'delivered')).to.equal(8);
      expect(server.maxInFlight).to.equal(1);
    });

    it('tls.ca_file verifies an https endpoint', async () => {
      const certs: TestCerts = makeTestCerts();
      try {
        server = await startTestServer(() => 204, { cert: readFileSync(certs.serverCrt), key: readFileSync(certs.serverKey) });
        const once = (extra: Record<string, unknown>) => runSink(fast(lsConfig(server.url, extra), { retry_attempts: 0 }), of([log('a', 0)])).then((ds) => ds[0]!.status);
        expect(await once({})).to.equal('errored');
        expect(await once({ tls: { ca_file: certs.caCrt } })).to.equal('delivered');
      } finally {
        certs.remove();
      }
    });

    it('proxy.http carries the push through a forward proxy', async () => {
      const proxy: TestProxy = await startTinyproxy();
      try {
        server = await startTestServer(() => 204);
        const ds = await runSink(fast(lsConfig(server.url, { proxy: { http: proxy.url } })), of([log('a', 0)]));
        expect(ds[0]!.status).to.equal('delivered');
        // tinyproxy logs a tunnel some time after it opened it
        await proxy.waitForRequestsTo(new URL(server.url).host, 1);
      } finally {
        await proxy.stop();
      }
    });
  });
});
