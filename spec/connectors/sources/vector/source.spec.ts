import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { connect } from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import * as v from 'valibot';
import { REQUEST_HOLD_TIMEOUT_MS } from '../../../../connectors/shared/source/index.js';
import { VectorSourceConfig } from '../../../../connectors/sources/vector/index.js';
import { Float, Timestamp } from '../../../../lib/value.js';
import type { LogEvent, MetricEvent } from '../../../../lib/event.js';
import { makeTestCerts, type TestCerts } from '../../../helpers/certs.js';
import { heldClock } from '../../../helpers/held-clock.js';
import { until } from '../../../helpers/wait.js';
import { vectorReference } from '../../shared/vector/vector-proto-text.js';
import { GRPC_HEALTH, HEALTH, PUSH, type RunningVectorSource, call, startVectorSource } from './vector-context.js';

const ref = vectorReference();
const b64 = (s: string) => Buffer.from(s).toString('base64');
const logs = (...messages: string[]) => ref.encodePush({ events: messages.map((m) => ({ log: { fields: { message: { raw_bytes: b64(m) }, timestamp: { timestamp: { seconds: 1_700_000_000 } } } } })) });
const messages = (s: RunningVectorSource) => s.events().map((e) => (e as LogEvent).fields.message);
const turn = () => new Promise((r) => setImmediate(r));
const varint = (n: number) => {
  const out: number[] = [];
  while (n >= 128) {
    out.push((n % 128) | 128);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
};

describe('vector source', function () {
  this.timeout(60_000);
  let s: RunningVectorSource;
  afterEach(async () => {
    await s?.stop();
  });

  describe('options', () => {
    const parse = (o: Record<string, unknown>) => v.safeParse(VectorSourceConfig, { type: 'vector', address: '0.0.0.0:6000', ...o });
    it('takes version "2" and refuses version "1" with a clear message', () => {
      expect(parse({ version: '2' }).success).to.equal(true);
      const r = parse({ version: '1' });
      expect(r.success).to.equal(false);
      expect(r.issues?.[0]?.message).to.match(/only version "2".*version "1".*removed/);
      expect(v.getDotPath(r.issues![0]!)).to.equal('version');
    });
    it('refuses an address without a port, and unknown options', () => {
      expect(parse({ address: 'localhost' }).success).to.equal(false);
      expect(parse({ port: 1 }).success).to.equal(false);
    });
  });

  it('takes a push built with Vector’s definitions: logs and metrics with exact types; answers OK', async () => {
    s = await startVectorSource();
    const body = ref.encodePush({
      events: [
        { log: { fields: { message: { raw_bytes: b64('hello') }, n: { integer: '3' }, f: { float: 3 } } } },
        { metric: { name: 'hits', kind: 'Absolute', counter: { value: 2 }, tags_v2: { host: { values: [{ value: 'a' }] } } } },
      ],
    });
    const r = await call(s.port, PUSH, body);
    expect(r.err).to.equal(null);
    expect(r.res!.length).to.equal(0);
    const [log, metric] = s.events() as [LogEvent, MetricEvent];
    expect(log.fields.message).to.equal('hello');
    expect(log.fields.n).to.equal(3);
    expect(log.fields.f).to.be.instanceOf(Float);
    expect(log.fields.source_type).to.equal('vector');
    expect(log.fields.timestamp).to.be.instanceOf(Timestamp);
    expect(metric).to.deep.include({ name: 'hits', kind: 'absolute', value: { type: 'counter', value: 2 }, tags: { host: 'a' } });
    expect(s.metric('component_received_bytes_total', { protocol: 'grpc' })).to.equal(body.length);
  });

  it('accepts gzip-compressed messages', async () => {
    s = await startVectorSource();
    const r = await call(s.port, PUSH, logs('zipped', 'zipped'.repeat(100)), { channel: { 'grpc.default_compression_algorithm': 2 } });
    expect(r.err).to.equal(null);
    expect(messages(s)).to.deep.equal(['zipped', 'zipped'.repeat(100)]);
  });

  it('a body that is not a PushEventsRequest: INVALID_ARGUMENT (not retried), counted, nothing emitted', async () => {
    s = await startVectorSource();
    const r = await call(s.port, PUSH, Buffer.from([0x0a, 0x09, 0x0a]));
    expect(r.err?.code).to.equal(grpc.status.INVALID_ARGUMENT);
    expect(s.events()).to.have.length(0);
    expect(s.metric('component_errors_total', { error_type: 'parser_failed' })).to.equal(1);
  });

  it('nesting deeper than the stack allows is refused INVALID_ARGUMENT, and the source goes on', async () => {
    s = await startVectorSource();
    // Value{array{items: Value{array{...}}}} nested 50,000 deep: lengths inside out, bytes outside in
    const depth = 50_000;
    const lengths = [2]; // the innermost Value{null}
    const itemLengths: number[] = [];
    for (let i = 0; i < depth; i++) {
      const item = 1 + varint(lengths[i]!).length + lengths[i]!;
      itemLengths.push(item);
      lengths.push(1 + varint(item).length + item);
    }
    const parts: Buffer[] = [];
    for (let i = depth - 1; i >= 0; i--) parts.push(Buffer.from([0x42]), varint(itemLengths[i]!), Buffer.from([0x0a]), varint(lengths[i]!));
    parts.push(Buffer.from([0x48, 0x00]));
    const value = Buffer.concat(parts);
    const entry = Buffer.concat([Buffer.from([0x0a, 0x01, 0x61, 0x12]), varint(value.length), value]);
    const log = Buffer.concat([Buffer.from([0x0a]), varint(entry.length), entry]);
    const wrapper = Buffer.concat([Buffer.from([0x0a]), varint(log.length), log]);
    const body = Buffer.concat([Buffer.from([0x0a]), varint(wrapper.length), wrapper]);
    expect((await call(s.port, PUSH, body)).err?.code).to.equal(grpc.status.INVALID_ARGUMENT);
    expect((await call(s.port, PUSH, logs('after'))).err).to.equal(null);
    expect(messages(s)).to.deep.equal(['after']);
  });

  it('traces and sketches are dropped and counted; the rest of the request is taken', async () => {
    s = await startVectorSource();
    const body = ref.encodePush({ events: [{ trace: { fields: {} } }, { metric: { name: 'sk', sketch: { agent_dd_sketch: { count: 1 } } } }, { log: { fields: { message: { raw_bytes: b64('kept') } } } }] });
    expect((await call(s.port, PUSH, body)).err).to.equal(null);
    expect(messages(s)).to.deep.equal(['kept']);
    expect(s.metric('component_discarded_events_total', { intentional: 'false' })).to.equal(2);
  });

  it('the largest decoded message is the global max_decompressed_bytes: larger is RESOURCE_EXHAUSTED', async () => {
    s = await startVectorSource({ globals: { max_decompressed_bytes: 2000 } });
    expect((await call(s.port, PUSH, logs('x'.repeat(500)))).err).to.equal(null);
    const r = await call(s.port, PUSH, logs('x'.repeat(3000)));
    expect(r.err?.code).to.equal(grpc.status.RESOURCE_EXHAUSTED);
    expect(s.events()).to.have.length(1);
  });

  describe('health', () => {
    it('vector.Vector/HealthCheck answers SERVING; grpc.health.v1 answers SERVING for the server and vector.Vector, NOT_FOUND otherwise', async () => {
      s = await startVectorSource();
      const h = await call(s.port, HEALTH, Buffer.alloc(0));
      expect(h.err).to.equal(null);
      expect(ref.health.toObject(ref.health.decode(h.res!), { enums: String, defaults: true })).to.deep.equal({ status: 'SERVING' });
      const check = async (service: string) => call(s.port, GRPC_HEALTH, service === '' ? Buffer.alloc(0) : Buffer.concat([Buffer.from([0x0a, service.length]), Buffer.from(service)]));
      expect((await check('')).res!.toString('hex')).to.equal('0801');
      expect((await check('vector.Vector')).res!.toString('hex')).to.equal('0801');
      expect((await check('other.Service')).err?.code).to.equal(grpc.status.NOT_FOUND);
    });

    it('while shutting down: health NOT_SERVING, new pushes UNAVAILABLE (retried by Vector)', async () => {
      s = await startVectorSource({ acknowledgements: true });
      const held = call(s.port, PUSH, logs('in flight'));
      await until(() => s.events().length === 1, 10_000, 'the first push');
      s.shutdown();
      const h = await call(s.port, HEALTH, Buffer.alloc(0));
      if (h.err === null) expect(h.res!.toString('hex')).to.equal('0801');
      else expect(h.err.code).to.equal(grpc.status.UNAVAILABLE);
      const r = await call(s.port, PUSH, logs('late'));
      expect(r.err?.code).to.equal(grpc.status.UNAVAILABLE);
      s.settle('delivered');
      expect((await held).err).to.equal(null);
      expect(messages(s)).to.deep.equal(['in flight']);
    });
  });

  describe('acknowledgements', () => {
    for (const [status, code] of [
      ['delivered', null],
      ['errored', grpc.status.INTERNAL],
      ['rejected', grpc.status.DATA_LOSS],
    ] as const) {
      it(`the answer waits for delivery: ${status} → ${code === null ? 'OK' : grpc.status[code]}`, async () => {
        s = await startVectorSource({ acknowledgements: true });
        let done = false;
        const r = call(s.port, PUSH, logs('a')).finally(() => (done = true));
        await until(() => s.events().length === 1, 10_000, 'the push');
        await turn();
        expect(done).to.equal(false);
        s.settle(status);
        const res = await r;
        expect(res.err?.code ?? null).to.equal(code);
      });
    }

    it('without acknowledgements the answer comes once the events are taken', async () => {
      s = await startVectorSource({ acknowledgements: false });
      expect((await call(s.port, PUSH, logs('a'))).err).to.equal(null);
      expect(messages(s)).to.deep.equal(['a']);
    });
  });

  describe('backpressure: a push waits while the output is full', () => {
    it('held unanswered and unread until the gate opens, then taken in order; nothing lost', async () => {
      const clock = heldClock();
      s = await startVectorSource({ scheduler: clock.scheduler });
      s.gate.close();
      let answered = 0;
      const a = call(s.port, PUSH, logs('a')).finally(() => answered++);
      const b = call(s.port, PUSH, logs('b')).finally(() => answered++);
      await until(() => s.metric('component_received_bytes_total', { protocol: 'grpc' }) > 0, 10_000, 'both pushes');
      clock.runTo(REQUEST_HOLD_TIMEOUT_MS - 1);
      await turn();
      expect(answered).to.equal(0);
      expect(s.events()).to.have.length(0);
      s.gate.open();
      expect((await a).err).to.equal(null);
      clock.runTo(REQUEST_HOLD_TIMEOUT_MS - 1);
      expect((await b).err).to.equal(null);
      expect(messages(s).sort()).to.deep.equal(['a', 'b']);
    });

    it('past the hold timeout: UNAVAILABLE (the client retries), nothing emitted', async () => {
      const clock = heldClock();
      s = await startVectorSource({ scheduler: clock.scheduler });
      s.gate.close();
      const a = call(s.port, PUSH, logs('a'));
      await until(() => s.metric('component_received_bytes_total', { protocol: 'grpc' }) > 0, 10_000, 'the push');
      clock.runTo(REQUEST_HOLD_TIMEOUT_MS);
      expect((await a).err?.code).to.equal(grpc.status.UNAVAILABLE);
      s.gate.open();
      await turn();
      expect(s.events()).to.have.length(0);
    });
  });

  describe('tls', () => {
    let certs: TestCerts;
    before(() => {
      certs = makeTestCerts();
    });

    it('serves TLS; with verify_certificate a client without a certificate of the CA is refused', async () => {
      s = await startVectorSource({ options: { tls: { enabled: true, crt_file: certs.serverCrt, key_file: certs.serverKey, ca_file: certs.caCrt, verify_certificate: true } } });
      const ca = readFileSync(certs.caCrt);
      const withCert = grpc.credentials.createSsl(ca, readFileSync(certs.clientKey), readFileSync(certs.clientCrt));
      expect((await call(s.port, PUSH, logs('mtls'), { creds: withCert })).err).to.equal(null);
      const anonymous = grpc.credentials.createSsl(ca);
      expect((await call(s.port, PUSH, logs('anon'), { creds: anonymous, deadlineMs: 5000 })).err?.code).to.be.oneOf([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]);
      expect((await call(s.port, PUSH, logs('plain'), { deadlineMs: 5000 })).err?.code).to.be.oneOf([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]);
      expect(messages(s)).to.deep.equal(['mtls']);
    });
  });

  it('keepalive.max_connection_age_grace_secs: a push in flight at the connection\'s age is cut without grace, finished with it', async () => {
    for (const grace of [undefined, 30]) {
      const clock = heldClock(); // the source's own hold timeout never fires: only the connection's age ends the push
      s = await startVectorSource({ scheduler: clock.scheduler, options: { keepalive: { max_connection_age_secs: 1, ...(grace === undefined ? {} : { max_connection_age_grace_secs: grace }) } } });
      s.gate.close();
      let settled = false;
      const push = call(s.port, PUSH, logs('held')).finally(() => (settled = true));
      await until(() => s.metric('component_received_bytes_total', { protocol: 'grpc' }) > 0, 10_000, 'the push');
      if (grace === undefined) {
        await until(() => settled, 15_000, 'the push cut at the connection\'s age');
        expect((await push).err, 'no grace').to.not.equal(null);
      } else {
        // well past the age, inside the grace: the push is still held, and is answered once taken
        await new Promise((r) => setTimeout(r, 3000));
        expect(settled, 'within the grace').to.equal(false);
        s.gate.open();
        expect((await push).err).to.equal(null);
      }
      await s.stop();
    }
  });

  it('keepalive.max_connection_age_secs: the server sends GOAWAY to a connection past its age', async () => {
    s = await startVectorSource({ options: { keepalive: { max_connection_age_secs: 1, max_connection_age_grace_secs: 1 } } });
    const session = connect(`http://127.0.0.1:${s.port}`);
    let goaway = false;
    session.on('goaway', () => (goaway = true));
    session.on('error', () => undefined);
    await until(() => goaway, 15_000, 'GOAWAY');
    session.destroy();
  });
});
