/**
 * The `kafka` source: one member of the consumer group `group_id`, reading the partitions the group
 * gives it from their committed offsets (`auto_offset_reset` where none is committed).
 *
 * Offsets follow delivery: the records of one fetch are emitted as one batch per partition, through
 * one ordered settlement per partition, which stores an offset only once that record and every record before it in the
 * partition were delivered (with end-to-end acknowledgements; without them, once in the buffers
 * downstream). Stored offsets are committed every `commit_interval_ms`, so the committed offset
 * never passes an undelivered record; a record that was not delivered holds its partition's offset
 * for the rest of the run, and the next member to own the partition reads it again.
 *
 * On a rebalance the partitions this member lost get `drain_timeout_ms` for the events in flight
 * to settle; then their offsets are committed as far as delivered and their state is dropped. On
 * shutdown every partition drains the same way and the member leaves the group.
 *
 * The committed offset is that of the last delivered record, as the client (and its resuming
 * after it) has it; Kafka's own clients commit the next offset to read, so they would read that
 * one record again, never skip one.
 */
import { type Observable, type Subscription, interval } from 'rxjs';
import type { SourceContext } from '../../../lib/component.js';
import type { DeliveryStatus, Event, EventBatch } from '../../../lib/event.js';
import { describeKafkaError, kafkaBaseOptions, kafkaClient } from '../../shared/kafka/client.js';
import { OrderedSettlement, type SourceOutput, pauseWhileClosed, runSource } from '../../shared/source/index.js';
import { type KafkaSourceConfig, OFFSET_RESETS, SOURCE_LIBRDKAFKA_OPTIONS } from './config.js';
import { type ConsumedRecord, createKafkaDecoder } from './decode.js';
import { type KafkaSourceEvents, kafkaSourceEvents } from './events.js';

type Consumer = import('@platformatic/kafka').Consumer<Buffer, Buffer, Buffer, Buffer>;
type Stream = Awaited<ReturnType<Consumer['consume']>>;

/** Most events of one partition emitted as one batch. */
const MAX_BATCH_EVENTS = 1_000;
/** librdkafka's heartbeat interval default. */
const HEARTBEAT_MS = 3_000;
/** librdkafka's `max.poll.interval.ms` default: how long the group waits for a member to join again. */
const REBALANCE_TIMEOUT_MS = 300_000;

/** One partition's delivery state. */
class PartitionState {
  /** Offset of the last record whose events (and all before) were delivered. */
  delivered: bigint | undefined;
  committed: bigint | undefined;
  readonly settlement: OrderedSettlement<bigint>;

  constructor(
    readonly topic: string,
    readonly partition: number,
    out: SourceOutput,
    events: KafkaSourceEvents,
  ) {
    this.settlement = new OrderedSettlement<bigint>(
      out,
      (offset) => void (this.delivered = offset),
      (status: DeliveryStatus, offset) => events.offsetHeld(topic, partition, offset, status),
    );
  }

  /** The offset to commit, when it moved since the last commit. */
  get toCommit(): bigint | undefined {
    return this.delivered !== undefined && (this.committed === undefined || this.delivered > this.committed) ? this.delivered : undefined;
  }
}

/** Builds the source. */
export function buildKafkaSource(config: KafkaSourceConfig, ctx: SourceContext): Observable<EventBatch> {
  return runSource(ctx, { protocol: 'tcp' }, (out) => new KafkaReader(config, ctx, out).start());
}

class KafkaReader {
  private readonly events: KafkaSourceEvents;
  private readonly decode: ReturnType<typeof createKafkaDecoder>;
  private readonly partitions = new Map<string, PartitionState>();
  private readonly pauser: ReturnType<typeof pauseWhileClosed>;
  private readonly drainMs: number;
  private consumer: Consumer | undefined;
  private stream: Stream | undefined;
  private ticker: Subscription | undefined;
  private committing: Promise<void> = Promise.resolve();
  /** Records of one fetch, per partition, emitted together once the fetch's records are pushed. */
  private readonly gathered = new Map<PartitionState, { events: Event[]; last: bigint }>();
  private flushQueued = false;
  private stopped = false;

  constructor(
    private readonly config: KafkaSourceConfig,
    private readonly ctx: SourceContext,
    private readonly out: SourceOutput,
  ) {
    this.events = kafkaSourceEvents(ctx);
    this.decode = createKafkaDecoder(config, ctx);
    this.pauser = pauseWhileClosed(ctx.out);
    this.drainMs = config.drain_timeout_ms ?? Math.floor(config.session_timeout_ms / 2);
  }

  start() {
    this.run().catch((err: unknown) => {
      if (!this.stopped) this.out.fail(new Error(describeKafkaError(err)));
    });
    return {
      drain: () => this.shutdown(),
      close: () => this.close(),
    };
  }

  private async run(): Promise<void> {
    const c = this.config;
    const base = kafkaBaseOptions(c, SOURCE_LIBRDKAFKA_OPTIONS, Number.POSITIVE_INFINITY);
    const group = {
      sessionTimeout: c.session_timeout_ms,
      heartbeatInterval: Math.min(HEARTBEAT_MS, Math.floor(c.session_timeout_ms / 3)),
      rebalanceTimeout: REBALANCE_TIMEOUT_MS,
      ...pick(base, ['heartbeatInterval', 'rebalanceTimeout']),
    };
    const fetch = { maxWaitTime: c.fetch_wait_max_ms, ...pick(base, ['minBytes', 'maxBytes']) };
    const topics = await this.resolveTopics(base);
    if (this.stopped) return;
    const consumer: Consumer = new (kafkaClient().Consumer)({ ...base, groupId: c.group_id, ...group, ...fetch, autocommit: false });
    this.consumer = consumer;
    consumer.on('consumer:group:join', (info: { assignments: Array<{ topic: string; partitions: number[] }> | null }) => this.assigned(info.assignments ?? []));
    const stream = await consumer.consume({ topics, mode: 'committed', fallbackMode: OFFSET_RESETS[c.auto_offset_reset], autocommit: false, ...fetch, ...group });
    if (this.stopped) {
      await stream.close().catch(() => undefined);
      return;
    }
    this.stream = stream;
    stream.on('data', (m: ConsumedRecord) => this.record(m));
    stream.on('error', (err: unknown) => {
      this.events.consumerFailed(describeKafkaError(err));
      if (!this.stopped) this.out.fail(new Error(describeKafkaError(err)));
    });
    this.ticker = interval(c.commit_interval_ms, this.ctx.scheduler).subscribe(() => void this.commit([...this.partitions.values()]));
  }

  /** Names as they are; `^regex` against the cluster's topics now. */
  private async resolveTopics(base: ReturnType<typeof kafkaBaseOptions>): Promise<string[]> {
    const names = this.config.topics.filter((t) => !t.startsWith('^'));
    const patterns = this.config.topics.filter((t) => t.startsWith('^')).map((t) => new RegExp(t));
    if (patterns.length === 0) return names;
    const admin = new (kafkaClient().Admin)({ ...base, retries: 3 });
    try {
      const all = await admin.listTopics();
      return [...new Set([...names, ...all.filter((t) => patterns.some((p) => p.test(t)))])];
    } finally {
      await admin.close().catch(() => undefined);
    }
  }

  private state(topic: string, partition: number): PartitionState {
    const key = `${topic}\0${partition}`;
    let s = this.partitions.get(key);
    if (s === undefined) this.partitions.set(key, (s = new PartitionState(topic, partition, this.out, this.events)));
    return s;
  }

  private record(m: ConsumedRecord): void {
    const bytes = (m.value?.length ?? 0) + (m.key?.length ?? 0);
    this.out.received(bytes);
    this.events.consumed(bytes);
    const st = this.state(m.topic, m.partition);
    let g = this.gathered.get(st);
    if (g === undefined) this.gathered.set(st, (g = { events: [], last: m.offset }));
    this.decode(m, g.events);
    g.last = m.offset;
    if (g.events.length >= MAX_BATCH_EVENTS) this.flush();
    else if (!this.flushQueued) {
      // the client pushes a fetch's records synchronously: a microtask later they are all here
      this.flushQueued = true;
      queueMicrotask(() => this.flush());
    }
  }

  /** Emits what was gathered, one batch per partition, settled up to its last record. */
  private flush(): void {
    this.flushQueued = false;
    if (this.gathered.size === 0) return;
    for (const [st, g] of this.gathered) st.settlement.emit(g.events, g.last);
    this.gathered.clear();
    if (this.stream !== undefined) this.pauser.pauseIfClosed(this.stream);
  }

  /** A new assignment: the partitions no longer assigned drain, then commit, then are forgotten. */
  private assigned(assignments: ReadonlyArray<{ topic: string; partitions: number[] }>): void {
    const kept = new Set(assignments.flatMap((a) => a.partitions.map((p) => `${a.topic}\0${p}`)));
    const lost = [...this.partitions.entries()].filter(([key]) => !kept.has(key));
    if (lost.length === 0) return;
    void this.settleAndCommit(lost.map(([, s]) => s)).then(() => {
      for (const [key, s] of lost) if (this.partitions.get(key) === s && !kept.has(key)) this.partitions.delete(key);
    });
  }

  /** Waits up to drain_timeout_ms for the partitions' events in flight, then commits them. */
  private async settleAndCommit(states: PartitionState[]): Promise<void> {
    const deadline = this.ctx.scheduler.now() + this.drainMs;
    while (states.some((s) => s.settlement.pending > 0) && this.ctx.scheduler.now() < deadline)
      await new Promise<void>((resolve) => this.ctx.scheduler.schedule(() => resolve(), Math.min(50, this.drainMs)));
    for (const s of states) if (s.settlement.pending > 0) this.events.drainTimedOut(s.topic, s.partition, s.settlement.pending);
    await this.commit(states);
  }

  /** Commits the delivered offsets that moved; one commit at a time. */
  private commit(states: PartitionState[]): Promise<void> {
    this.committing = this.committing.then(async () => {
      const consumer = this.consumer;
      if (consumer === undefined) return;
      const due = states.flatMap((s) => {
        const offset = s.toCommit;
        return offset === undefined ? [] : [{ s, offset }];
      });
      if (this.config.metrics.topic_lag_metric) await this.reportLag(consumer, states);
      if (due.length === 0) return;
      try {
        await consumer.commit({ offsets: due.map(({ s, offset }) => ({ topic: s.topic, partition: s.partition, offset, leaderEpoch: -1 })) });
        for (const { s, offset } of due) if (s.committed === undefined || offset > s.committed) s.committed = offset;
      } catch (err) {
        this.events.commitFailed(describeKafkaError(err));
      }
    });
    return this.committing;
  }

  /** `kafka_consumer_lag`: records after the delivered offset, per partition this member reads. */
  private async reportLag(consumer: Consumer, states: PartitionState[]): Promise<void> {
    const topics = [...new Set(states.map((s) => s.topic))];
    if (topics.length === 0) return;
    try {
      const ends = await consumer.listOffsets({ topics });
      for (const s of states) {
        const end = ends.get(s.topic)?.[s.partition];
        if (end === undefined) continue;
        const next = s.delivered === undefined ? 0n : s.delivered + 1n;
        this.events.lag(s.topic, s.partition, Number(end > next ? end - next : 0n));
      }
    } catch (err) {
      this.events.consumerFailed(describeKafkaError(err));
    }
  }

  /** Stops reading, lets the events in flight settle (up to drain_timeout_ms), commits, leaves the group. */
  private async shutdown(): Promise<void> {
    this.stopped = true;
    this.stream?.pause();
    this.ticker?.unsubscribe();
    this.flush();
    await this.settleAndCommit([...this.partitions.values()]);
    await this.stream?.close().catch(() => undefined);
    await this.consumer?.close().catch(() => undefined);
    this.consumer = undefined;
  }

  private close(): void {
    this.stopped = true;
    this.ticker?.unsubscribe();
    this.pauser.close();
    const consumer = this.consumer;
    this.consumer = undefined;
    if (consumer === undefined) return;
    void (this.stream?.close() ?? Promise.resolve()).catch(() => undefined).then(() => consumer.close(true)).catch(() => undefined);
  }
}

/** The entries of `from` named in `keys` that are set (the mapped librdkafka options), taken out of it. */
function pick(from: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys)
    if (from[k] !== undefined) {
      out[k] = from[k];
      delete from[k];
    }
  return out;
}
