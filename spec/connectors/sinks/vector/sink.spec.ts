import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { type Observable, Subject, lastValueFrom, of, toArray } from 'rxjs';
import * as v from 'valibot';
import { VectorSinkConfig, buildVectorSink, vectorHealthcheck } from '../../../../connectors/sinks/vector/index.js';
import { type Delivery, type EventBatch, EventMetadata, LogEvent, MetricEvent, logEvent } from '../../../../lib/event.js';
import { Float, Timestamp } from '../../../../lib/value.js';
import { makeTestCerts, type TestCerts } from '../../../helpers/certs.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { until } from '../../../helpers/wait.js';
import { vectorReference } from '../../shared/vector/vector-proto-text.js';
import { type GrpcTestServer, grpcTestServer } from './grpc-server.js';

const ref = vectorReference();
const b64 = (s: string) => Buffer.from(s).toString('base64');

function config(address: string, extra: Record<string, unknown> = {}): VectorSinkConfig {
  const c = v.parse(VectorSinkConfig, { type: 'vector', inputs: ['in'], address, ...extra });
  // fast retries for tests; the schema takes whole seconds, the sink any number
  c.request = { ...c.request, retry_initial_backoff_secs: 0.01, retry_max_duration_secs: 0.05, ...(extra.request as object) };
  return c;
}
const run = (c: VectorSinkConfig, input: Observable<EventBatch>, ctx = testSinkContext('vector')): Promise<Delivery[]> => lastValueFrom(input.pipe(buildVectorSink(c, ctx), toArray()));
const events = (n: number) => Array.from({ length: n }, (_, i) => logEvent({ message: `m${i}`, i }));
const count = (ds: readonly Delivery[], status: Delivery['status']) => ds.filter((d) => d.status === status).reduce((n, d) => n + d.events.length, 0);
const messagesOf = (s: GrpcTestServer) =>
  s.calls.filter((c) => c.path === '/vector.Vector/PushEvents').map((c) => ref.decodePush(c.message).events.map((e) => Buffer.from(((e.log as { fields: Record<string, { raw_bytes: string }> }).fields.message!.raw_bytes), 'base64').toString()));

describe('vector sink', function () {
  this.timeout(60_000);
  let server: GrpcTestServer;
  beforeEach(async () => {
    server = await grpcTestServer();
  });
  afterEach(async () => {
    await server.close();
  });
  const addr = () => `127.0.0.1:${server.port}`;

  describe('options', () => {
    const parse = (o: Record<string, unknown>) => v.safeParse(VectorSinkConfig, { type: 'vector', inputs: ['in'], address: '127.0.0.1:6000', ...o });
    it('Vector’s defaults: 1000 events or 1 s a batch, no compression, adaptive concurrency', () => {
      const c = parse({});
      expect(c.success).to.equal(true);
      const out = c.output as VectorSinkConfig;
      expect(out.batch).to.deep.equal({ max_events: 1000, timeout_secs: 1 });
      expect(out.compression).to.equal('none');
      expect(out.request.concurrency).to.equal('adaptive');
      expect(out.request.timeout_secs).to.equal(60);
    });
    it('version "1" and zstd are refused with a reason; compression = true means gzip', () => {
      expect(parse({ version: '1' }).issues?.[0]?.message).to.match(/only version "2"/);
      const z = parse({ compression: 'zstd' });
      expect(z.success).to.equal(false);
      expect(z.issues?.[0]?.message).to.match(/zstd is not supported.*grpc-js.*gzip/);
      expect((parse({ compression: true }).output as VectorSinkConfig).compression).to.equal('gzip');
    });
    it('the address must have a port; a scheme is optional; https turns TLS on', () => {
      expect(parse({ address: 'example.com' }).issues?.[0]?.message).to.equal('must include a port');
      expect(parse({ address: 'https://example.com:443' }).success).to.equal(true);
      expect(parse({ address: 'ftp://example.com:21' }).success).to.equal(false);
      expect(parse({ routing: { endpoints: [] } }).success).to.equal(false);
    });
  });

  it('sends one PushEventsRequest per batch to /vector.Vector/PushEvents, bytes as Vector’s definitions read them', async () => {
    const ts = new Timestamp(1_700_000_000_000, 1);
    const log = new LogEvent({ message: 'hi', n: 1, f: new Float(1), t: ts }, new EventMetadata('src', 'demo'));
    const metric = new MetricEvent('hits', 'incremental', { type: 'counter', value: 1 }, new EventMetadata('src', 'demo'), 'app', { host: 'a' });
    const ds = await run(config(addr()), of([log, metric]));
    expect(count(ds, 'delivered')).to.equal(2);
    expect(server.calls).to.have.length(1);
    const c = server.calls[0]!;
    expect(c.path).to.equal('/vector.Vector/PushEvents');
    expect(c.compressed).to.equal(false);
    const [l, m] = ref.decodePush(c.message).events as [{ log: { fields: Record<string, unknown> } }, { metric: Record<string, unknown> }];
    expect(l.log.fields).to.deep.equal({
      message: { raw_bytes: b64('hi'), kind: 'raw_bytes' },
      n: { integer: '1', kind: 'integer' },
      f: { float: 1, kind: 'float' },
      t: { timestamp: { seconds: '1700000000', nanos: 1 }, kind: 'timestamp' },
    });
    expect(m.metric).to.deep.include({ name: 'hits', namespace: 'app', counter: { value: 1 }, tags_v1: { host: 'a' } });
  });

  it('batch.max_events: a request holds at most that many events', async () => {
    const ds = await run(config(addr(), { batch: { max_events: 2 } }), of(events(5)));
    expect(count(ds, 'delivered')).to.equal(5);
    expect(messagesOf(server).map((m) => m.length)).to.deep.equal([2, 2, 1]);
  });

  it('batch.max_bytes counts each event’s encoded EventWrapper bytes', async () => {
    const es = events(4);
    // each of these wrappers is 50 bytes or less: two fit in 100, three do not
    const ds = await run(config(addr(), { batch: { max_bytes: 100, max_events: 100 } }), of(es));
    expect(count(ds, 'delivered')).to.equal(4);
    expect(messagesOf(server).map((m) => m.length)).to.deep.equal([2, 2]);
  });

  it('compression = "gzip": frames flagged compressed with grpc-encoding gzip; "none" leaves them plain', async () => {
    await run(config(addr(), { compression: 'gzip' }), of(events(50)));
    expect(server.calls[0]!.compressed).to.equal(true);
    expect(server.calls[0]!.headers['grpc-encoding']).to.equal('gzip');
    expect(server.calls[0]!.wire.length).to.be.lessThan(server.calls[0]!.message.length);
    expect(messagesOf(server)[0]).to.have.length(50);
  });

  describe('retries by gRPC status, as Vector’s sink', () => {
    for (const [code, name] of [
      [14, 'UNAVAILABLE'],
      [13, 'INTERNAL'],
      [8, 'RESOURCE_EXHAUSTED'],
      [4, 'DEADLINE_EXCEEDED'],
    ] as const) {
      it(`${name} is retried, then delivered`, async () => {
        server.answer = (n) => (n === 0 ? code : 0);
        const ds = await run(config(addr()), of(events(3)));
        expect(count(ds, 'delivered')).to.equal(3);
        expect(server.calls).to.have.length(2);
      });
    }
    for (const [code, name] of [
      [3, 'INVALID_ARGUMENT'],
      [15, 'DATA_LOSS'],
      [12, 'UNIMPLEMENTED'],
      [16, 'UNAUTHENTICATED'],
      [7, 'PERMISSION_DENIED'],
    ] as const) {
      it(`${name} is not retried: the events end rejected`, async () => {
        server.answer = () => code;
        const ds = await run(config(addr()), of(events(3)));
        expect(count(ds, 'rejected')).to.equal(3);
        expect(server.calls).to.have.length(1);
      });
    }
    it('request.retry_attempts bounds the retries: then the events end errored', async () => {
      server.answer = () => 14;
      const ds = await run(config(addr(), { request: { retry_attempts: 2 } }), of(events(1)));
      expect(count(ds, 'errored')).to.equal(1);
      expect(server.calls).to.have.length(3);
    });
    it('request.timeout_secs: a call unanswered past it is cancelled and retried', async () => {
      server.answer = (n) => (n === 0 ? 'stall' : 0);
      const ds = await run(config(addr(), { request: { timeout_secs: 1 } }), of(events(2)));
      expect(count(ds, 'delivered')).to.equal(2);
      expect(server.calls).to.have.length(2);
    });
  });

  it('request.concurrency: that many requests are in flight at once, no more', async () => {
    server.answer = () => 'stall';
    const input = new Subject<EventBatch>();
    const done = run(config(addr(), { batch: { max_events: 1 }, request: { concurrency: 2, timeout_secs: 30 } }), input);
    input.next(events(5));
    await until(() => server.calls.length === 2, 10_000, 'two calls');
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(server.calls).to.have.length(2);
    server.answer = () => 0;
    server.release();
    input.complete();
    expect(count(await done, 'delivered')).to.equal(5);
  });

  it('request.headers go as gRPC metadata', async () => {
    await run(config(addr(), { request: { headers: { 'X-Tenant': 'blue' } } }), of(events(1)));
    expect(server.calls[0]!.headers['x-tenant']).to.equal('blue');
  });

  it('keepalive: PINGs are sent on the connection', async () => {
    const input = new Subject<EventBatch>();
    const done = run(config(addr(), { keepalive: { interval_secs: 1, timeout_secs: 5 } }), input);
    input.next(events(1));
    await until(() => server.calls.length === 1, 10_000, 'the push');
    await until(() => server.pings > 0, 15_000, 'a keepalive PING');
    input.complete();
    await done;
  });

  describe('healthcheck', () => {
    it('calls vector.Vector/HealthCheck: SERVING passes', async () => {
      await vectorHealthcheck(config(addr()), testSinkContext('vector'));
      expect(server.calls.map((c) => c.path)).to.deep.equal(['/vector.Vector/HealthCheck']);
    });
    it('an error status fails it; healthcheck.enabled = false makes no call', async () => {
      server.answer = () => 14;
      let failed: unknown;
      await vectorHealthcheck(config(addr()), testSinkContext('vector')).catch((e: unknown) => (failed = e));
      expect(failed).to.be.instanceOf(Error);
      const before = server.calls.length;
      await vectorHealthcheck(config(addr(), { healthcheck: { enabled: false } }), testSinkContext('vector'));
      expect(server.calls.length).to.equal(before);
    });
  });

  describe('tls', () => {
    let certs: TestCerts;
    let tlsServer: GrpcTestServer;
    before(async () => {
      certs = makeTestCerts();
      tlsServer = await grpcTestServer({ key: readFileSync(certs.serverKey), cert: readFileSync(certs.serverCrt) });
    });
    after(async () => {
      await tlsServer.close();
    });
    it('https:// with tls.ca_file: delivered over TLS; without the CA the server is not trusted', async () => {
      const ok = await run(config(`https://127.0.0.1:${tlsServer.port}`, { tls: { ca_file: certs.caCrt } }), of(events(1)));
      expect(count(ok, 'delivered')).to.equal(1);
      const bad = await run(config(`https://127.0.0.1:${tlsServer.port}`, { request: { retry_attempts: 1 } }), of(events(1)));
      expect(count(bad, 'delivered')).to.equal(0);
      expect(tlsServer.calls).to.have.length(1);
    });
    it('tls.enabled with a bare host:port uses TLS', async () => {
      const ok = await run(config(`127.0.0.1:${tlsServer.port}`, { tls: { enabled: true, ca_file: certs.caCrt } }), of(events(1)));
      expect(count(ok, 'delivered')).to.equal(1);
    });
    it('tls.verify_certificate = false: a server the sink cannot trust is taken', async () => {
      const ok = await run(config(`https://127.0.0.1:${tlsServer.port}`, { tls: { verify_certificate: false } }), of(events(1)));
      expect(count(ok, 'delivered')).to.equal(1);
    });
    it('a certificate for another host name: refused, taken with tls.verify_hostname = false or with that name in tls.server_name', async () => {
      const other = await grpcTestServer({ key: readFileSync(certs.otherHostKey), cert: readFileSync(certs.otherHostCrt) });
      try {
        const at = `https://127.0.0.1:${other.port}`;
        const refused = await run(config(at, { tls: { ca_file: certs.caCrt }, request: { retry_attempts: 1 } }), of(events(1)));
        expect(count(refused, 'delivered')).to.equal(0);
        expect(other.calls).to.have.length(0);
        const anyName = await run(config(at, { tls: { ca_file: certs.caCrt, verify_hostname: false } }), of(events(1)));
        expect(count(anyName, 'delivered')).to.equal(1);
        const named = await run(config(at, { tls: { ca_file: certs.caCrt, server_name: 'elsewhere.example' } }), of(events(1)));
        expect(count(named, 'delivered')).to.equal(1);
        expect(other.calls).to.have.length(2);
      } finally {
        await other.close();
      }
    });
  });
});
