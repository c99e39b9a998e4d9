/**
 * The kafka sink against the repository's test broker (spec/peers/kafka-broker.ts), read back with
 * kcat (librdkafka), an independent client: topics, keys, headers, partitions, compression, a
 * broker that goes away and comes back, SASL, and the message timeout.
 */
import { expect } from 'chai';
import { Subject, lastValueFrom, of, toArray } from 'rxjs';
import * as v from 'valibot';
import { KafkaSinkConfig } from '../../../../connectors/sinks/kafka/config.js';
import { buildKafkaSink, kafkaHealthcheck } from '../../../../connectors/sinks/kafka/sink.js';
import type { Delivery, Event } from '../../../../lib/event.js';
import { EventMetadata, MetricEvent, logEvent } from '../../../../lib/event.js';
import { Timestamp } from '../../../../lib/value.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { until } from '../../../helpers/wait.js';
import { KAFKA_USER, type KafkaBroker, sharedKafkaBroker, startKafkaBroker } from '../../../peers/kafka-broker.js';
import { kcat } from '../../../peers/kcat.js';

let serial = 0;
const unique = (what: string) => `sink-${what}-${process.pid}-${++serial}`;

export function kafkaSinkConfig(servers: string, topic: string, extra: Record<string, unknown> = {}): KafkaSinkConfig {
  return v.parse(KafkaSinkConfig, { type: 'kafka', inputs: ['in'], bootstrap_servers: servers, topic, encoding: { codec: 'json' }, ...extra });
}

const run = (config: KafkaSinkConfig, input: Parameters<typeof lastValueFrom<Event[]>>[0], ctx = testSinkContext('kafka')) =>
  lastValueFrom(input.pipe(buildKafkaSink(config, ctx), toArray()));
const count = (ds: readonly Delivery[], status: Delivery['status']) => ds.filter((d) => d.status === status).reduce((n, d) => n + d.events.length, 0);

describe('kafka sink (test broker, read back with kcat)', function () {
  this.timeout(120_000);
  let broker: KafkaBroker;
  before(async () => {
    broker = await sharedKafkaBroker();
  });

  it('writes each event once to its rendered topic, keyed by key_field, with headers from headers_key', async () => {
    const base = unique('tpl');
    broker.createTopic(`${base}-a`, 4);
    broker.createTopic(`${base}-b`, 4);
    const events = Array.from({ length: 40 }, (_, i) => logEvent({ message: `m${i}`, app: i % 2 === 0 ? 'a' : 'b', user: `u${i % 5}`, meta: { trace: `t${i}`, n: i } }));
    const ctx = testSinkContext('kafka');
    const ds = await run(kafkaSinkConfig(broker.address, `${base}-{{ app }}`, { key_field: 'user', headers_key: 'meta', encoding: { codec: 'text' } }), of(events.concat([logEvent({ message: 'no app' })])), ctx);
    expect(count(ds, 'delivered')).to.equal(40);
    expect(count(ds, 'rejected')).to.equal(1);
    for (const app of ['a', 'b']) {
      const { stdout } = await kcat(['-b', broker.address, '-C', '-t', `${base}-${app}`, '-e', '-f', '%p|%k|%s|%h\n']);
      const lines = stdout.trim().split('\n');
      expect(lines).to.have.length(20);
      const want = events.filter((e) => (e.fields as { app: string }).app === app);
      expect(lines.map((l) => l.split('|')[2]).sort()).to.deep.equal(want.map((e) => String((e.fields as { message: string }).message)).sort());
      for (const l of lines) {
        const [, key, message, headers] = l.split('|');
        const i = Number(message!.slice(1));
        expect(key).to.equal(`u${i % 5}`);
        // string values become headers; others are skipped (Vector takes bytes only)
        expect(headers).to.equal(`trace=t${i},n=${i}`);
      }
      // one key, one partition
      const byKey = new Map<string, Set<string>>();
      for (const l of lines) {
        const [p, key] = l.split('|');
        byKey.set(key!, (byKey.get(key!) ?? new Set()).add(p!));
      }
      expect([...byKey.values()].every((s) => s.size === 1)).to.equal(true);
    }
    expect(ctx.metric('kafka_produced_messages_total')).to.equal(40);
    expect(ctx.metric('kafka_queue_messages')).to.equal(0);
  });

  for (const compression of ['gzip', 'snappy', 'lz4'] as const)
    it(`compresses record batches with ${compression}`, async () => {
      const topic = unique(compression);
      broker.createTopic(topic, 1);
      const ds = await run(kafkaSinkConfig(broker.address, topic, { compression }), of(Array.from({ length: 50 }, (_, i) => logEvent({ message: `line ${i} ${'x'.repeat(100)}` }))));
      expect(count(ds, 'delivered')).to.equal(50);
      const batches = broker.topics.get(topic)!.partitions[0]!.batches;
      const codec = { gzip: 1, snappy: 2, lz4: 3 }[compression];
      expect(batches.every((b) => (b.bytes.readInt16BE(21) & 7) === codec)).to.equal(true);
      const { stdout } = await kcat(['-b', broker.address, '-C', '-t', topic, '-e', '-f', '%s\n']);
      expect(stdout.trim().split('\n')).to.have.length(50);
    });

  it('writes metric events too, with the metric\'s timestamp as the record\'s', async () => {
    const topic = unique('metrics');
    broker.createTopic(topic, 1);
    const metric = new MetricEvent('requests', 'incremental', { type: 'counter', value: 3 }, new EventMetadata('in', 'test'), 'app', { host: 'h1' }, new Timestamp(1_700_000_000_123));
    const ds = await run(kafkaSinkConfig(broker.address, topic), of([metric]));
    expect(count(ds, 'delivered')).to.equal(1);
    const { stdout } = await kcat(['-b', broker.address, '-C', '-t', topic, '-e', '-f', '%T|%s\n']);
    const [ts, value] = stdout.trim().split('|');
    expect(ts).to.equal('1700000000123');
    expect(JSON.parse(value!)).to.deep.include({ name: 'requests', namespace: 'app', kind: 'incremental', counter: { value: 3 } });
  });

  it('keeps what it was given while the broker is down and delivers it once the broker is back', async () => {
    const own = await startKafkaBroker({ autoCreateTopics: true });
    const topic = unique('restart');
    own.createTopic(topic, 2);
    try {
      const input = new Subject<Event[]>();
      const ctx = testSinkContext('kafka');
      const result = run(kafkaSinkConfig(own.address, topic, { socket_timeout_ms: 2000 }), input, ctx);
      input.next([logEvent({ message: 'before' })]);
      await until(() => own.allRecords(topic).length === 1, 20_000, 'the first record');
      await own.stop();
      for (let i = 0; i < 10; i++) input.next([logEvent({ message: `while down ${i}` })]);
      await new Promise((r) => setTimeout(r, 2500));
      expect(own.allRecords(topic)).to.have.length(1);
      await own.start();
      input.complete();
      const ds = await result;
      expect(count(ds, 'delivered')).to.equal(11);
      const { stdout } = await kcat(['-b', own.address, '-C', '-t', topic, '-e', '-f', '%s\n']);
      const messages = stdout.trim().split('\n').map((l) => (JSON.parse(l) as { message: string }).message);
      expect(messages.sort()).to.deep.equal(['before', ...Array.from({ length: 10 }, (_, i) => `while down ${i}`)].sort());
    } finally {
      await own.close();
    }
  });

  it('gives a batch up as errored once message_timeout_ms has passed', async () => {
    const own = await startKafkaBroker();
    own.createTopic('t', 1);
    const address = own.address;
    await own.close();
    const ds = await run(kafkaSinkConfig(address, 't', { message_timeout_ms: 1500, socket_timeout_ms: 500 }), of([logEvent({ message: 'lost' })]));
    expect(count(ds, 'errored')).to.equal(1);
  });

  describe('with SASL', () => {
    let secure: KafkaBroker;
    before(async () => {
      secure = await sharedKafkaBroker('sasl');
    });

    for (const mechanism of ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'])
      it(`${mechanism}: logs in and writes; the health check passes`, async () => {
        const topic = unique(`sasl-${mechanism}`);
        secure.createTopic(topic, 1);
        const sasl = { enabled: true, mechanism, username: KAFKA_USER.username, password: KAFKA_USER.password };
        const config = kafkaSinkConfig(secure.address, topic, { sasl });
        await kafkaHealthcheck(config);
        const ds = await run(config, of([logEvent({ message: 'secret' })]));
        expect(count(ds, 'delivered')).to.equal(1);
        expect(secure.records(topic, 0)).to.have.length(1);
      });

    it('fails the health check with the broker\'s error on a wrong password', async () => {
      const config = kafkaSinkConfig(secure.address, 'any', { sasl: { enabled: true, mechanism: 'SCRAM-SHA-256', username: KAFKA_USER.username, password: 'wrong' } });
      const err = await kafkaHealthcheck(config).then(() => undefined, (e: unknown) => e as Error);
      expect(err?.message).to.match(/Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256/);
    });

    it('fails the health check without credentials (the broker takes nothing before a login)', async () => {
      const err = await kafkaHealthcheck(kafkaSinkConfig(secure.address, 'any', { socket_timeout_ms: 1000 })).then(() => undefined, (e: unknown) => e as Error);
      expect(err).to.be.instanceOf(Error);
    });
  });
});

describe('kafka sink: TLS and batching (test broker)', function () {
  this.timeout(60_000);
  it('tls.enabled with the test CA in tls.ca_file: writes; without that CA the health check fails', async () => {
    const { makeTestCerts } = await import('../../../helpers/certs.js');
    const certs = makeTestCerts();
    const secure = await startKafkaBroker({ tls: { certFile: certs.serverCrt, keyFile: certs.serverKey } });
    try {
      secure.createTopic('tls', 1);
      const address = `localhost:${secure.port}`;
      const config = kafkaSinkConfig(address, 'tls', { tls: { enabled: true, ca_file: certs.caCrt } });
      await kafkaHealthcheck(config);
      const ds = await run(config, of([logEvent({ message: 'over tls' })]));
      expect(count(ds, 'delivered')).to.equal(1);
      expect(secure.records('tls', 0)[0]!.value!.toString()).to.contain('over tls');
      const err = await kafkaHealthcheck(kafkaSinkConfig(address, 'tls', { tls: { enabled: true }, socket_timeout_ms: 2000 })).then(() => undefined, (e: unknown) => e as Error);
      expect(err?.message).to.match(/certificate/i);
    } finally {
      await secure.close();
    }
  });

  it('batch.max_events bounds the records of one produce request', async () => {
    const broker = await sharedKafkaBroker();
    const topic = unique('batch');
    broker.createTopic(topic, 1);
    const ds = await run(kafkaSinkConfig(broker.address, topic, { batch: { max_events: 7 } }), of(Array.from({ length: 30 }, (_, i) => logEvent({ message: `m${i}` }))));
    expect(count(ds, 'delivered')).to.equal(30);
    const sizes = broker.topics.get(topic)!.partitions[0]!.batches.map((b) => b.last - b.base + 1);
    expect(Math.max(...sizes)).to.equal(7);
    expect(sizes.reduce((a, b) => a + b, 0)).to.equal(30);
  });
});
