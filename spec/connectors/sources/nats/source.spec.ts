/**
 * The nats source against a real nats-server: subjects and wildcards, queue groups, the subject
 * field, decoding and framing, and a JetStream durable consumer whose messages are acknowledged
 * only once delivered.
 */
import { expect } from 'chai';
import { AckPolicy, type NatsConnection, StringCodec, connect } from 'nats';
import type { Subscription } from 'rxjs';
import * as v from 'valibot';
import { NatsSourceConfig } from '../../../../connectors/sources/nats/config.js';
import { buildNatsSource } from '../../../../connectors/sources/nats/source.js';
import { type EventBatch, LogEvent, settleAll } from '../../../../lib/event.js';
import { until } from '../../../helpers/wait.js';
import { type NatsServer, sharedNatsServer } from '../../../peers/nats-server.js';
import { type TestSourceContext, testSourceContext } from '../source-context.js';

let serial = 0;
const unique = (prefix: string) => `${prefix}${process.pid}x${++serial}`;
const sc = StringCodec();

/** A running source and what it emitted. */
interface Running {
  readonly ctx: TestSourceContext;
  readonly events: LogEvent[];
  error: unknown;
  stop(): void;
}

describe('nats source (real nats-server)', function () {
  this.timeout(60_000);
  let server: NatsServer;
  let nc: NatsConnection;
  const running: Running[] = [];
  before(async () => {
    server = await sharedNatsServer('users');
    nc = await connect({ servers: server.url });
  });
  after(async () => {
    await nc.close();
  });
  afterEach(() => {
    for (const r of running.splice(0)) r.stop();
  });

  const config = (subject: string, extra: Record<string, unknown> = {}) =>
    v.parse(NatsSourceConfig, { type: 'nats', url: server.url, connection_name: unique('weir-src-'), subject, ...extra });

  /** Starts a source; resolves once its subscription is registered at the server (plain NATS). */
  async function start(c: NatsSourceConfig, opts: { acks?: boolean } = {}): Promise<Running> {
    const base = testSourceContext('nats');
    const ctx = { ...base, acknowledgements: opts.acks ?? false } as TestSourceContext;
    const events: LogEvent[] = [];
    const r: Running = { ctx, events, error: undefined, stop: () => sub.unsubscribe() };
    const sub: Subscription = buildNatsSource(c, ctx).subscribe({
      next: (b: EventBatch) => {
        for (const e of b) events.push(e as LogEvent);
      },
      error: (err: unknown) => (r.error = err),
    });
    running.push(r);
    if (c.jetstream === undefined) await subscribed(c.connection_name, c.subject);
    return r;
  }

  /** Polls the server's connection list until the named client subscribed to `subject`. */
  async function subscribed(name: string, subject: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const connz = (await (await fetch(`${server.monitorUrl}/connz?subs=1`)).json()) as { connections: { name?: string; subscriptions_list?: string[] }[] };
      if (connz.connections.some((c) => c.name === name && (c.subscriptions_list ?? []).includes(subject))) return;
      if (Date.now() > deadline) throw new Error(`${name} did not subscribe to ${subject}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  const publish = async (subject: string, text: string) => {
    nc.publish(subject, sc.encode(text));
    await nc.flush();
  };

  it('receives the subjects a wildcard matches, each event with its subject and source type', async () => {
    const base = unique('src.wild');
    const r = await start(config(`${base}.*.in`));
    await publish(`${base}.a.in`, 'one');
    await publish(`${base}.a.b.in`, 'too deep for *');
    await publish(`${base}.b.in`, 'two');
    await publish(`${base}.b.out`, 'other subject');
    await until(() => r.events.length === 2, 10_000, 'two events');
    expect(r.events.map((e) => [e.fields.message, e.fields.subject, e.fields.source_type])).to.deep.equal([
      ['one', `${base}.a.in`, 'nats'],
      ['two', `${base}.b.in`, 'nats'],
    ]);
    expect(r.ctx.metric('component_received_bytes_total')).to.equal(6);
    // nothing more arrives: the other two did not match (checked after a message that does)
    await publish(`${base}.c.in`, 'three');
    await until(() => r.events.length === 3, 10_000, 'a third event');
    expect(r.events[2]!.fields.message).to.equal('three');
  });

  it('two sources in one queue group split the messages, each message once; a source outside the group gets all', async () => {
    const subject = unique('src.queue');
    const queue = unique('workers');
    const a = await start(config(subject, { queue }));
    const b = await start(config(subject, { queue }));
    const all = await start(config(subject));
    for (let i = 0; i < 40; i++) nc.publish(subject, sc.encode(`m${i}`));
    await nc.flush();
    await until(() => a.events.length + b.events.length === 40 && all.events.length === 40, 10_000, '40 messages in the group and 40 outside it');
    const got = [...a.events, ...b.events].map((e) => e.fields.message as string).sort();
    expect(got).to.deep.equal(Array.from({ length: 40 }, (_, i) => `m${i}`).sort());
    // the server spreads a group's messages over its members
    expect(a.events.length).to.be.greaterThan(0);
    expect(b.events.length).to.be.greaterThan(0);
  });

  it('writes the subject at subject_key_field only where the event has no such field; "" writes none', async () => {
    const subject = unique('src.key');
    const custom = await start(config(subject, { subject_key_field: 'meta.topic', decoding: { codec: 'json' } }));
    const none = await start(config(subject, { subject_key_field: '' }));
    const kept = await start(config(subject, { decoding: { codec: 'json' } }));
    await publish(subject, '{"message":"x","subject":"own"}');
    await until(() => custom.events.length === 1 && none.events.length === 1 && kept.events.length === 1, 10_000, 'one event each');
    expect(custom.events[0]!.fields.meta).to.deep.equal({ topic: subject });
    expect(none.events[0]!.fields).to.not.have.property('subject');
    expect(kept.events[0]!.fields.subject).to.equal('own');
  });

  it('decodes with the codec and splits with the framing; an undecodable frame is counted and skipped', async () => {
    const subject = unique('src.decode');
    const r = await start(config(subject, { decoding: { codec: 'json' }, framing: { method: 'newline_delimited' } }));
    await publish(subject, '{"message":"a","n":1}\nnot json\n{"message":"b","n":2}\n');
    await until(() => r.events.length === 2, 10_000, 'two events');
    expect(r.events.map((e) => [e.fields.message, e.fields.n])).to.deep.equal([
      ['a', 1],
      ['b', 2],
    ]);
    await until(() => r.ctx.metric('component_errors_total', { error_type: 'parser_failed' }) === 1, 10_000, 'one parser error');
  });

  it('fails when the server refuses the login', async () => {
    const r = await start(config(unique('src.auth'), { auth: { strategy: 'user_password', user_password: { user: 'weir', password: 'wrong' } }, jetstream: { stream: 'X', consumer: 'Y' } }));
    await until(() => r.error !== undefined, 10_000, 'the source to fail');
    expect(String(r.error)).to.match(/authorization/i);
  });

  it('connects over TLS with the CA and a client certificate', async () => {
    const tlsServer = await sharedNatsServer('tls');
    const certs = tlsServer.certs!;
    const subject = unique('src.tls');
    const c = v.parse(NatsSourceConfig, {
      type: 'nats',
      url: tlsServer.url,
      connection_name: unique('weir-src-'),
      subject,
      tls: { enabled: true, ca_file: certs.caCrt, crt_file: certs.clientCrt, key_file: certs.clientKey },
    });
    const base = testSourceContext('nats');
    const events: LogEvent[] = [];
    const sub = buildNatsSource(c, base).subscribe((b) => events.push(...(b as LogEvent[])));
    const pub = await connect({ servers: tlsServer.url, tls: { caFile: certs.caCrt, certFile: certs.clientCrt, keyFile: certs.clientKey } });
    try {
      // published until the subscription is in place: plain NATS keeps nothing for a subscriber yet to come
      const deadline = Date.now() + 10_000;
      while (events.length === 0) {
        if (Date.now() > deadline) throw new Error('nothing received over TLS');
        pub.publish(subject, sc.encode('secure'));
        await pub.flush();
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(events[0]!.fields.message).to.equal('secure');
    } finally {
      sub.unsubscribe();
      await pub.close();
    }
  });

  it('subscribes again after the server restarts', async () => {
    const subject = unique('src.restart');
    const r = await start(config(subject));
    await publish(subject, 'before');
    await until(() => r.events.length === 1, 10_000, 'the first event');
    await nc.close();
    await server.kill();
    await server.start();
    nc = await connect({ servers: server.url });
    // the client reconnects and subscribes again on its own; plain NATS keeps nothing for a subscriber
    // not yet back, so publish until one arrives
    const deadline = Date.now() + 20_000;
    while (!r.events.some((e) => e.fields.message === 'after')) {
      if (Date.now() > deadline) throw new Error('nothing received after the restart');
      await publish(subject, 'after');
      await new Promise((res) => setTimeout(res, 50));
    }
    expect(r.error).to.equal(undefined);
  });

  describe('jetstream', () => {
    /** A stream on `<name>.>` with a durable pull consumer acknowledging explicitly. */
    async function streamWithConsumer(ackWaitMs = 30_000): Promise<{ stream: string; consumer: string; subject: string }> {
      const stream = unique('SRCJS');
      const subject = `${stream.toLowerCase()}.in`;
      const jsm = await nc.jetstreamManager();
      await jsm.streams.add({ name: stream, subjects: [`${stream.toLowerCase()}.>`] });
      await jsm.consumers.add(stream, { durable_name: 'weir', ack_policy: AckPolicy.Explicit, ack_wait: ackWaitMs * 1_000_000 });
      return { stream, consumer: 'weir', subject };
    }

    const consumerState = async (stream: string, consumer: string) => {
      const info = await (await nc.jetstreamManager()).consumers.info(stream, consumer);
      return { ackPending: info.num_ack_pending, pending: info.num_pending, redelivered: info.num_redelivered };
    };

    it('acknowledges a message only once its events were delivered; a failed delivery comes back', async () => {
      const { stream, consumer, subject } = await streamWithConsumer();
      const js = nc.jetstream();
      for (const t of ['a', 'b', 'c']) await js.publish(subject, sc.encode(t));
      const r = await start(config(`${stream.toLowerCase()}.>`, { jetstream: { stream, consumer } }), { acks: true });
      await until(() => r.events.length === 3, 10_000, 'three events');
      expect(r.events.map((e) => [e.fields.message, e.fields.subject])).to.deep.equal([
        ['a', subject],
        ['b', subject],
        ['c', subject],
      ]);
      // nothing settled yet: all three wait for their acknowledgement
      expect((await consumerState(stream, consumer)).ackPending).to.equal(3);
      // the sink failed on "b" (errored), delivered the others
      settleAll(r.events.filter((e) => e.fields.message !== 'b'), 'delivered');
      settleAll(r.events.filter((e) => e.fields.message === 'b'), 'errored');
      await until(() => r.events.length === 4, 10_000, '"b" delivered again');
      expect(r.events[3]!.fields.message).to.equal('b');
      // the sink is healthy again
      settleAll([r.events[3]!], 'delivered');
      const deadline = Date.now() + 10_000;
      for (;;) {
        const s = await consumerState(stream, consumer);
        if (s.ackPending === 0) {
          expect(s).to.deep.equal({ ackPending: 0, pending: 0, redelivered: 0 });
          break;
        }
        if (Date.now() > deadline) throw new Error(`still unacknowledged: ${JSON.stringify(s)}`);
        await new Promise((res) => setTimeout(res, 20));
      }
      expect(r.events).to.have.length(4);
    });

    it('without acknowledgements downstream a message is acknowledged once emitted', async () => {
      const { stream, consumer, subject } = await streamWithConsumer();
      const js = nc.jetstream();
      await js.publish(subject, sc.encode('only'));
      const r = await start(config(subject, { jetstream: { stream, consumer } }));
      await until(() => r.events.length === 1, 10_000, 'the event');
      const deadline = Date.now() + 10_000;
      while ((await consumerState(stream, consumer)).ackPending !== 0) {
        if (Date.now() > deadline) throw new Error('never acknowledged');
        await new Promise((res) => setTimeout(res, 20));
      }
    });

    it('pulls no more while the output gate is closed, and resumes when it opens', async () => {
      const { stream, consumer, subject } = await streamWithConsumer();
      const js = nc.jetstream();
      for (let i = 0; i < 6; i++) await js.publish(subject, sc.encode(`g${i}`));
      const r = await start(config(subject, { jetstream: { stream, consumer, batch_config: { batch: 2 } } }));
      r.ctx.gate.close();
      // the pull under way when the gate closed ends after its two messages
      await until(() => r.events.length >= 2, 10_000, 'the first pull');
      const afterFirst = r.events.length;
      expect(afterFirst).to.equal(2);
      expect((await consumerState(stream, consumer)).pending).to.equal(4);
      r.ctx.gate.open();
      await until(() => r.events.length === 6, 10_000, 'the rest after the gate opened');
    });

    it('fails when the durable consumer does not exist', async () => {
      const { stream } = await streamWithConsumer();
      const r = await start(config('x', { jetstream: { stream, consumer: 'missing' } }));
      await until(() => r.error !== undefined, 10_000, 'the source to fail');
      expect(String(r.error)).to.match(/consumer not found/i);
    });
  });
});
