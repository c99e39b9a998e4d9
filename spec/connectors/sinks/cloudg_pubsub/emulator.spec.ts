import { expect } from 'chai';
import { type Server, type Socket, connect, createServer } from 'node:net';
import { Subject, from, lastValueFrom, tap, toArray } from 'rxjs';
import { buildCloudgPubsubSink, cloudgPubsubHealthcheck } from '../../../../connectors/sinks/cloudg_pubsub/sink.js';
import { type Delivery, type EventBatch, logEvent } from '../../../../lib/event.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { until } from '../../../helpers/wait.js';
import { type PubsubEmulator, requirePubsubEmulator, startPubsubEmulator } from '../../../peers/pubsub-emulator.js';
import { count, fast, pubsubConfig, runSink } from './harness.js';

const events = (n: number, from0 = 0) => Array.from({ length: n }, (_, i) => logEvent({ message: `event ${from0 + i}`, n: from0 + i }));
const ns = (msgs: { data: Buffer }[]) => msgs.map((m) => (JSON.parse(m.data.toString()) as { n: number }).n).sort((a, b) => a - b);

/** A TCP pass-through to the emulator that can refuse connections (reset) while closed. */
async function forwarder(target: number): Promise<{ port: number; isOpen: boolean; failed: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const state = { port: 0, isOpen: true, failed: 0, close: async () => {} };
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    if (!state.isOpen) {
      state.failed++;
      return client.destroy();
    }
    const upstream = connect(target, '127.0.0.1');
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    client.pipe(upstream).pipe(client);
    const end = () => (client.destroy(), upstream.destroy());
    client.on('error', end);
    upstream.on('error', () => {
      state.failed++;
      end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.port = (server.address() as { port: number }).port;
  state.close = () => new Promise<void>((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r())));
  return state;
}

describe('connectors/sinks/cloudg_pubsub: against the Pub/Sub emulator, read back with the official client', function () {
  this.timeout(120_000);
  let emu: PubsubEmulator;
  let topicN = 0;
  const nextTopic = () => `weir-topic-${++topicN}`;
  before(async function () {
    requirePubsubEmulator();
    emu = await startPubsubEmulator();
  });
  after(() => emu?.close());

  it('json: 2,500 events published exactly once each, in requests of at most 1,000 messages', async () => {
    const t = await emu.topic(nextTopic());
    const ctx = testSinkContext('cloudg_pubsub');
    const ds = await runSink(fast(pubsubConfig(emu.url, t.name)), from([events(1200), events(1300, 1200)]), ctx);
    expect(count(ds, 'delivered')).to.equal(2500);
    await until(() => t.received.length >= 2500, 60_000, '2500 messages');
    expect(ns(t.received)).to.deep.equal(Array.from({ length: 2500 }, (_, i) => i));
    expect(JSON.parse(t.received[0]!.data.toString())).to.have.keys('message', 'n');
    expect(ds.filter((d) => d.status === 'delivered').every((d) => d.events.length <= 1000)).to.equal(true);
  });

  it('text: the message field of each event, once each', async () => {
    const t = await emu.topic(nextTopic());
    const ds = await runSink(fast(pubsubConfig(emu.url, t.name, { encoding: { codec: 'text' } })), from([events(300)]));
    expect(count(ds, 'delivered')).to.equal(300);
    await until(() => t.received.length >= 300, 60_000, '300 messages');
    const texts = t.received.map((m) => m.data.toString()).sort((a, b) => Number(a.split(' ')[1]) - Number(b.split(' ')[1]));
    expect(texts).to.deep.equal(Array.from({ length: 300 }, (_, i) => `event ${i}`));
  });

  it('attributes and ordering_key are rendered per event', async () => {
    const t = await emu.topic(nextTopic());
    const cfg = fast(pubsubConfig(emu.url, t.name, { attributes: { host: '{{ host }}', kind: 'log' }, ordering_key: 'k-{{ n }}' }));
    const ds = await runSink(cfg, from([[logEvent({ message: 'a', host: 'h1', n: 1 })]]));
    expect(count(ds, 'delivered')).to.equal(1);
    await until(() => t.received.length >= 1, 60_000, 'the message');
    expect(t.received[0]!.attributes).to.deep.equal({ host: 'h1', kind: 'log' });
    expect(t.received[0]!.orderingKey).to.equal('k-1');
  });

  it('an event larger than batch.max_bytes alone, or one that encodes to nothing, is rejected and counted; the rest go', async () => {
    const t = await emu.topic(nextTopic());
    const ctx = testSinkContext('cloudg_pubsub');
    const cfg = fast(pubsubConfig(emu.url, t.name, { encoding: { codec: 'text' }, batch: { max_bytes: 1000 } }));
    const ds = await runSink(cfg, from([[logEvent({ message: 'x'.repeat(2000) }), logEvent({ other: 1 }), ...events(5)]]), ctx);
    expect(count(ds, 'rejected')).to.equal(2);
    expect(count(ds, 'delivered')).to.equal(5);
    expect(ctx.metric('component_errors_total', { error_type: 'event_too_large' })).to.equal(1);
    expect(ctx.metric('component_errors_total', { error_type: 'encoder_failed' })).to.equal(1);
    await until(() => t.received.length >= 5, 60_000, '5 messages');
    expect(t.received).to.have.length(5);
  });

  it('health check: the topic answers 200; a missing topic fails with "topic not found"', async () => {
    const t = await emu.topic(nextTopic());
    await cloudgPubsubHealthcheck(pubsubConfig(emu.url, t.name), { globals: testSinkContext('x').globals }, {});
    const err = await cloudgPubsubHealthcheck(pubsubConfig(emu.url, 'no-such-topic'), { globals: testSinkContext('x').globals }, {}).then(() => undefined, (e: Error) => e);
    expect(err?.message).to.match(/^topic not found: GET .*\/v1\/projects\/weir-test\/topics\/no-such-topic answered 404/);
  });

  it('the emulator stopped mid-run and restarted: nothing lost, nothing twice', async () => {
    const name = nextTopic();
    let t = await emu.topic(name);
    const fwd = await forwarder(Number(emu.host.split(':')[1]));
    try {
      const cfg = fast(pubsubConfig(`http://127.0.0.1:${fwd.port}`, name, { batch: { max_events: 50, timeout_secs: 0.05 } }), { retry_max_duration_secs: 0.2 });
      const input = new Subject<EventBatch>();
      const ds: Delivery[] = [];
      const done = lastValueFrom(input.pipe(buildCloudgPubsubSink(cfg, testSinkContext('cloudg_pubsub'), {}), tap((d) => ds.push(d)), toArray()));
      input.next(events(200));
      // stopped only once the sink has its answers: a publish the emulator took whose answer the stop
      // cuts off is sent again (at least once), which is not what this test is about
      await until(() => t.received.length >= 200 && count(ds, 'delivered') >= 200, 60_000, 'the first 200 messages, published and answered');
      await emu.stop();
      input.next(events(300, 200));
      // the sink meets the stopped emulator before it comes back
      await until(() => fwd.failed > 0, 30_000, 'a refused connection');
      // the new emulator is empty: keep the sink out until its topic and subscription exist again
      fwd.isOpen = false;
      await emu.restart();
      const before = t.received.slice();
      await t.close();
      t = await emu.topic(name);
      fwd.isOpen = true;
      input.complete();
      await done;
      expect(count(ds, 'delivered')).to.equal(500);
      expect(count(ds, 'rejected') + count(ds, 'errored')).to.equal(0);
      await until(() => t.received.length >= 300, 60_000, 'the 300 messages sent during the outage');
      expect(ns([...before, ...t.received])).to.deep.equal(Array.from({ length: 500 }, (_, i) => i));
    } finally {
      await fwd.close();
    }
  });
});
