/**
 * The kafka source in-process against the test broker: the field options, auto_offset_reset,
 * ^regex topics, commits as far as delivered with acknowledgements, the consumer metrics, and SASL.
 */
import { expect } from 'chai';
import type { Subscription } from 'rxjs';
import * as v from 'valibot';
import { KafkaSourceConfig } from '../../../../connectors/sources/kafka/config.js';
import { buildKafkaSource } from '../../../../connectors/sources/kafka/source.js';
import { type DeliveryStatus, type EventBatch, LogEvent, settleAll } from '../../../../lib/event.js';
import { until } from '../../../helpers/wait.js';
import { KAFKA_USER, type KafkaBroker, sharedKafkaBroker } from '../../../peers/kafka-broker.js';
import { kcat } from '../../../peers/kcat.js';
import { type TestSourceContext, testSourceContext } from '../source-context.js';

let serial = 0;
const unique = (what: string) => `src-${what}-${process.pid}-${++serial}`;

interface Running {
  readonly ctx: TestSourceContext;
  readonly events: LogEvent[];
  readonly batches: EventBatch[];
  error: unknown;
  stop(): void;
}

describe('kafka source (test broker)', function () {
  this.timeout(60_000);
  let broker: KafkaBroker;
  const running: Running[] = [];
  before(async () => {
    broker = await sharedKafkaBroker();
  });
  afterEach(() => {
    for (const r of running.splice(0)) r.stop();
  });

  const config = (topics: string[], extra: Record<string, unknown> = {}, b = broker) =>
    v.parse(KafkaSourceConfig, { type: 'kafka', bootstrap_servers: b.address, topics, group_id: unique('g'), auto_offset_reset: 'earliest', commit_interval_ms: 100, ...extra });

  function start(c: KafkaSourceConfig, opts: { acks?: boolean } = {}): Running {
    const ctx = { ...testSourceContext('kafka'), acknowledgements: opts.acks ?? false } as TestSourceContext;
    const events: LogEvent[] = [];
    const batches: EventBatch[] = [];
    const r: Running = { ctx, events, batches, error: undefined, stop: () => sub.unsubscribe() };
    const sub: Subscription = buildKafkaSource(c, ctx).subscribe({
      next: (b: EventBatch) => {
        batches.push(b);
        for (const e of b) events.push(e as LogEvent);
      },
      error: (err: unknown) => (r.error = err),
    });
    running.push(r);
    return r;
  }

  const produce = async (topic: string, lines: string[], headers: string[] = []) =>
    expect((await kcat(['-b', broker.address, '-P', '-t', topic, '-K:', ...headers.flatMap((h) => ['-H', h])], `${lines.join('\n')}\n`)).code).to.equal(0);

  it('emits the records of one fetch as one batch per partition', async () => {
    const topic = unique('batch');
    broker.createTopic(topic, 1);
    await produce(topic, Array.from({ length: 50 }, (_, i) => `k:${i}`));
    const r = start(config([topic]));
    await until(() => r.events.length === 50, 20_000, '50 events');
    expect(r.batches.length).to.be.lessThan(5);
    expect(r.events.map((e) => (e.fields as { offset: number }).offset)).to.deep.equal(Array.from({ length: 50 }, (_, i) => i));
  });

  it('writes key, topic, partition, offset and headers where the options say, and not where they are empty', async () => {
    const topic = unique('fields');
    broker.createTopic(topic, 1);
    await produce(topic, ['k:{"message":"hello","n":1}'], ['h=v']);
    const r = start(config([topic], { decoding: { codec: 'json' }, key_field: 'kafka.key', topic_key: 'kafka.topic', partition_key: '', offset_key: 'at', headers_key: 'hdrs' }));
    await until(() => r.events.length === 1, 20_000, 'one event');
    const f = r.events[0]!.fields as Record<string, unknown>;
    expect(f.message).to.equal('hello');
    expect(f.n).to.equal(1);
    expect(f.kafka).to.deep.equal({ key: 'k', topic });
    expect(f.at).to.equal(0);
    expect(f.hdrs).to.deep.equal({ h: 'v' });
    expect(f).to.not.have.property('partition');
    expect(f).to.not.have.property('message_key');
    expect(r.ctx.metric('kafka_consumed_messages_total')).to.equal(1);
  });

  it('auto_offset_reset: latest skips what is already in the topic, earliest reads it', async () => {
    const topic = unique('reset');
    broker.createTopic(topic, 1);
    await produce(topic, ['a:old']);
    const latestConfig = config([topic], { auto_offset_reset: 'largest' });
    const latest = start(latestConfig);
    const earliest = start(config([topic], { auto_offset_reset: 'smallest' }));
    await until(() => earliest.events.length === 1, 20_000, 'the earliest reader');
    await until(() => broker.group(latestConfig.group_id)?.state === 'Stable', 20_000, 'the latest reader to join');
    // its position is taken after the assignment: a moment, then one more record
    await new Promise((r) => setTimeout(r, 1000));
    await produce(topic, ['b:new']);
    await until(() => latest.events.length === 1 && earliest.events.length === 2, 20_000, 'the new record');
    expect((latest.events[0]!.fields as { message: string }).message).to.equal('new');
  });

  it('reads every topic a ^regex matches', async () => {
    const prefix = unique('re');
    broker.createTopic(`${prefix}-one`, 1);
    broker.createTopic(`${prefix}-two`, 1);
    broker.createTopic(`other-${prefix}`, 1);
    for (const t of [`${prefix}-one`, `${prefix}-two`, `other-${prefix}`]) await produce(t, [`k:${t}`]);
    const r = start(config([`^${prefix}-.*`]));
    await until(() => r.events.length === 2, 20_000, 'two topics');
    expect(r.events.map((e) => (e.fields as { topic: string }).topic).sort()).to.deep.equal([`${prefix}-one`, `${prefix}-two`]);
  });

  it('with acknowledgements, commits a partition only as far as every earlier event was delivered', async () => {
    const topic = unique('acks');
    broker.createTopic(topic, 1);
    const group = unique('g');
    const r = start(config([topic], { group_id: group }), { acks: true });
    // one record at a time, so each is a batch of its own (a fetch's records form one batch)
    for (let i = 0; i < 4; i++) {
      await produce(topic, [`k:${i}`]);
      await until(() => r.batches.length === i + 1, 20_000, `batch ${i + 1}`);
    }
    const settle = (i: number, status: DeliveryStatus) => settleAll(r.batches[i]!, status);
    // the second and third settle first: nothing before them is delivered, so nothing is committed
    settle(1, 'delivered');
    settle(2, 'delivered');
    await new Promise((res) => setTimeout(res, 400));
    expect(broker.committed(group).get(`${topic}/0`)).to.equal(undefined);
    settle(0, 'delivered');
    await until(() => broker.committed(group).get(`${topic}/0`)?.offset === 2, 10_000, 'offset 2 committed');
    // a failed event holds the offset where it is
    settle(3, 'errored');
    await new Promise((res) => setTimeout(res, 400));
    expect(broker.committed(group).get(`${topic}/0`)?.offset).to.equal(2);
  });

  it('reports kafka_consumer_lag when metrics.topic_lag_metric is on', async () => {
    const topic = unique('lag');
    broker.createTopic(topic, 1);
    const r = start(config([topic], { metrics: { topic_lag_metric: true } }), { acks: true });
    for (let i = 0; i < 3; i++) {
      await produce(topic, [`k:${i}`]);
      await until(() => r.batches.length === i + 1, 20_000, `batch ${i + 1}`);
    }
    settleAll(r.batches[0]!, 'delivered');
    await until(() => r.ctx.metric('kafka_consumer_lag', { topic_id: topic, partition_id: '0' }) === 2, 10_000, 'a lag of 2');
  });

  it('logs in with SASL SCRAM-SHA-512', async () => {
    const secure = await sharedKafkaBroker('sasl');
    const topic = unique('sasl');
    secure.createTopic(topic, 1);
    expect(
      (await kcat(['-b', secure.address, '-X', 'security.protocol=SASL_PLAINTEXT', '-X', 'sasl.mechanisms=PLAIN', '-X', `sasl.username=${KAFKA_USER.username}`, '-X', `sasl.password=${KAFKA_USER.password}`, '-P', '-t', topic], 'secret\n')).code,
    ).to.equal(0);
    const r = start(config([topic], { sasl: { enabled: true, mechanism: 'SCRAM-SHA-512', username: KAFKA_USER.username, password: KAFKA_USER.password } }, secure));
    await until(() => r.events.length === 1, 20_000, 'one event');
    expect((r.events[0]!.fields as { message: string }).message).to.equal('secret');
  });
});
