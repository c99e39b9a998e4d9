/**
 * Events, their metadata and end-to-end acknowledgements.
 *
 * Events travel in arrays ({@link EventBatch}): one RxJS notification per batch, not per event.
 * A source that supports acknowledgements attaches a {@link BatchNotifier} to the events it emits;
 * every copy of an event (fan-out) holds a reference, and each sink settles its copy once. The
 * notifier resolves when every copy settled, with the worst status seen.
 */
import { type ObjectValue, type Value, Timestamp, cloneValue, sizeOfValue } from './value.js';
import { utf8Slice } from './utf8.js';

/** Outcome of one event at one sink. `rejected` = permanent failure, `errored` = gave up retrying. */
export type DeliveryStatus = 'delivered' | 'errored' | 'rejected';

const RANK: Record<DeliveryStatus, number> = { delivered: 0, errored: 1, rejected: 2 };

/** Collects the outcome of every copy of every event of one source batch. */
export class BatchNotifier {
  private pending = 0;
  private status: DeliveryStatus = 'delivered';
  private done = false;
  constructor(private readonly onSettled: (status: DeliveryStatus) => void) {}

  /** One more copy to wait for; called when an event is created or cloned. */
  retain(n = 1): void {
    this.pending += n;
  }
  /** A copy finished with this status; the last one fires the callback. */
  settle(status: DeliveryStatus): void {
    if (RANK[status] > RANK[this.status]) this.status = status;
    if (--this.pending === 0 && !this.done) {
      this.done = true;
      this.onSettled(this.status);
    }
  }
  get isSettled(): boolean {
    return this.done;
  }
}

/** Out-of-band data travelling with an event; never serialized with it. */
export class EventMetadata {
  constructor(
    /** Id of the source component that created the event. */
    public sourceId: string,
    /** Type token of that source (`socket`, `demo_logs`). */
    public sourceType: string,
    /** Acknowledgement handles; several after a reduce merged events. */
    public notifiers: BatchNotifier[] | undefined = undefined,
    /** The `%` metadata tree of the remap language. */
    public value: ObjectValue | undefined = undefined,
    /** Secrets set by remap's set_secret (name → secret); kept apart from `%`, never serialized. */
    public secrets: ReadonlyMap<string, string> | undefined = undefined,
  ) {}

  /** Copy for fan-out: the copy holds its own claim on every notifier. */
  clone(): EventMetadata {
    if (this.notifiers) for (const n of this.notifiers) n.retain();
    return new EventMetadata(this.sourceId, this.sourceType, this.notifiers, this.value && (cloneValue(this.value) as ObjectValue), this.secrets);
  }
  /** Settles this copy's claims (idempotent: the claims are released once). */
  settle(status: DeliveryStatus): void {
    const ns = this.notifiers;
    if (!ns) return;
    this.notifiers = undefined;
    for (const n of ns) n.settle(status);
  }
  /** Takes over another event's claims (reduce merging events). */
  absorb(other: EventMetadata): void {
    const ns = other.notifiers;
    if (!ns) return;
    other.notifiers = undefined;
    this.notifiers = this.notifiers ? this.notifiers.concat(ns) : ns;
  }
}

/** A log event: a map of fields plus metadata. */
export class LogEvent {
  readonly type = 'log' as const;
  constructor(
    public fields: ObjectValue,
    public meta: EventMetadata,
  ) {}
  clone(): LogEvent {
    return new LogEvent(cloneValue(this.fields) as ObjectValue, this.meta.clone());
  }
}

/** Shared by every {@link EncodedLogEvent}: its fields live only in its encoded text. */
const NO_FIELDS: ObjectValue = Object.freeze({}) as ObjectValue;

/**
 * A log event a worker thread already decoded, transformed and encoded for its sink
 * (docs/threads.md): the main thread holds only the encoded record and its sizes. It passes
 * through the sink's buffer and batching like any event; the sink's encoder takes `text` as is.
 */
export class EncodedLogEvent extends LogEvent {
  /** A partition key, when the sink sets one: an encoded event is its own encoded item. */
  key: string | undefined = undefined;
  /**
   * The sink's partition key as the worker rendered it from the event (the event's fields did not
   * cross), or why it could not: the sink groups and refuses by it as by a key it rendered itself.
   */
  rendered: string | { readonly template: string; readonly reason: string } | undefined = undefined;
  /** What else the sink's record takes from the event, as the worker read it (WorkerSinkEncoder.recordFields). */
  recordFields: unknown = undefined;
  constructor(
    meta: EventMetadata,
    /** The bytes of the worker's answer that hold this record (shared by the piece's records). */
    readonly bytes: Buffer,
    /** The record's UTF-8 bytes as the sink's encoder wrote them (no framing): `bytes[start, end)`. */
    readonly start: number,
    readonly end: number,
    /** {@link eventSize} of the event the record was encoded from. */
    readonly eventBytes: number,
    /** The answer's records still to be copied into bodies, when its buffer goes back to its worker. */
    readonly records?: AnswerRecords,
  ) {
    super(NO_FIELDS, meta);
  }
  /** As a sink's encoded item (connectors/shared/request-sink.ts `Encoded`): no copy per event. */
  get event(): this {
    return this;
  }
  /** UTF-8 bytes of the record (counts against `batch.max_bytes`). */
  get size(): number {
    return this.end - this.start;
  }
  /** The record as text, for the rare bodies built from texts (explicit framings). */
  get text(): string {
    return utf8Slice(this.bytes, this.start, this.end);
  }
  /** The record's fields for display (tap): JSON records parsed, other records as their message. */
  displayFields(): ObjectValue {
    const text = this.text;
    try {
      const v = JSON.parse(text) as unknown;
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as ObjectValue;
    } catch {
      // not JSON: shown as the message below
    }
    return { message: text };
  }
  override clone(): EncodedLogEvent {
    // a copy reads the record whenever it likes: its own bytes, never given back
    return new EncodedLogEvent(this.meta.clone(), Buffer.from(this.bytes.subarray(this.start, this.end)), 0, this.end - this.start, this.eventBytes);
  }
}

/**
 * The records of one worker answer not yet copied into a request body. A sink that copied `n` of
 * them and reads them no more says {@link done}; when none is left the answer's buffer goes back to
 * the worker that wrote it, which writes later answers into it (docs/threads.md). Records a sink
 * drops are never counted off: their buffer is then left to the collector, as any other.
 */
export class AnswerRecords {
  constructor(
    private pending: number,
    private readonly giveBack: () => void,
  ) {}
  done(n: number): void {
    this.pending -= n;
    if (this.pending === 0) this.giveBack();
  }
}

/**
 * What a sink keeps of a log event it has encoded when nothing waits for the event's delivery (no
 * acknowledgement, no disk buffer record): its size and source, for the delivery's counters. The
 * fields are let go at once, so an event does not outlive the young generation while its request
 * is out (docs/memory.md).
 */
export class SpentLogEvent extends LogEvent {
  constructor(
    meta: EventMetadata,
    /** {@link eventSize} of the event it stands for. */
    readonly eventBytes: number,
  ) {
    super(NO_FIELDS, meta);
  }
  override clone(): SpentLogEvent {
    return new SpentLogEvent(this.meta.clone(), this.eventBytes);
  }
}

/** The event itself while a delivery may settle it; otherwise a {@link SpentLogEvent} of its size. */
export function spend(e: Event): Event {
  return e.type === 'log' && e.meta.notifiers === undefined && e.fields !== NO_FIELDS ? new SpentLogEvent(e.meta, sizeOfValue(e.fields)) : e;
}

export type MetricKind = 'absolute' | 'incremental';
/** A tag holds one value, a bare tag (null) or several values. */
export type TagValue = string | null | (string | null)[];
export type Tags = Record<string, TagValue>;

export interface Sample {
  value: number;
  rate: number;
}
export interface Bucket {
  upper_limit: number;
  count: number;
}
export interface Quantile {
  quantile: number;
  value: number;
}
/** Metric values in Vector's model, keyed by their JSON name. */
export type MetricValue =
  | { type: 'counter'; value: number }
  | { type: 'gauge'; value: number }
  | { type: 'set'; values: string[] }
  | { type: 'distribution'; samples: Sample[]; statistic: 'histogram' | 'summary' }
  | { type: 'aggregated_histogram'; buckets: Bucket[]; count: number; sum: number }
  | { type: 'aggregated_summary'; quantiles: Quantile[]; count: number; sum: number };

/** A metric event in Vector's model. */
export class MetricEvent {
  readonly type = 'metric' as const;
  constructor(
    public name: string,
    public kind: MetricKind,
    public value: MetricValue,
    public meta: EventMetadata,
    public namespace: string | undefined = undefined,
    public tags: Tags | undefined = undefined,
    public timestamp: Timestamp | undefined = undefined,
    public intervalMs: number | undefined = undefined,
  ) {}
  clone(): MetricEvent {
    return new MetricEvent(
      this.name,
      this.kind,
      structuredClone(this.value),
      this.meta.clone(),
      this.namespace,
      this.tags && structuredClone(this.tags),
      this.timestamp,
      this.intervalMs,
    );
  }
  /** Vector's JSON form of a metric (`{"name":…,"kind":…,"counter":{"value":…}}`). */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name };
    if (this.namespace !== undefined) out.namespace = this.namespace;
    if (this.tags && Object.keys(this.tags).length > 0) out.tags = this.tags;
    if (this.timestamp) out.timestamp = this.timestamp.toString();
    if (this.intervalMs !== undefined) out.interval_ms = this.intervalMs;
    out.kind = this.kind;
    const { type, ...body } = this.value;
    // Vector writes infinite histogram bounds as strings
    if (type === 'aggregated_histogram') (body as { buckets: unknown[] }).buckets = this.value.buckets.map((b) => ({ upper_limit: Number.isFinite(b.upper_limit) ? b.upper_limit : b.upper_limit > 0 ? 'inf' : '-inf', count: b.count }));
    out[type] = body;
    return out;
  }
}

export type Event = LogEvent | MetricEvent;
/** Events move between components in arrays; never empty when emitted. */
export type EventBatch = Event[];

/** What a component with named outputs emits: the batch and the output it leaves through. */
export interface RoutedBatch {
  readonly output: string;
  readonly events: EventBatch;
}

/** What a sink reports for each unit of work it finished. */
export interface Delivery {
  readonly status: DeliveryStatus;
  readonly events: readonly Event[];
  /** Encoded bytes sent on the wire (component_sent_bytes_total); 0 when unknown. */
  readonly bytes: number;
}

/** Creates a log event the way sources do; `message` and the schema fields first, in a stable shape. */
export function logEvent(fields: ObjectValue, sourceId = '', sourceType = ''): LogEvent {
  return new LogEvent(fields, new EventMetadata(sourceId, sourceType));
}

/** Estimated size of an event for buffers, batches and *_event_bytes_total (JSON-like). */
export function eventSize(e: Event): number {
  if (e.type === 'log') return e.fields === NO_FIELDS ? (e as EncodedLogEvent | SpentLogEvent).eventBytes : sizeOfValue(e.fields);
  return 64 + e.name.length + (e.tags ? sizeOfValue(e.tags as unknown as Value) : 0);
}

/** Sum of {@link eventSize} over a batch. */
export function batchSize(events: readonly Event[]): number {
  let n = 0;
  for (let i = 0; i < events.length; i++) n += eventSize(events[i]!);
  return n;
}

/**
 * Sizes a batch's creator already summed (a decoder, a buffer's pull), kept until the next counter
 * reads them once: the topology then does not walk every event's fields again.
 */
const knownSizes = new WeakMap<readonly Event[], number>();

/** Records the size of a batch just made; valid until its events change, so it is read only once. */
export function rememberBatchSize(events: readonly Event[], bytes: number): void {
  knownSizes.set(events, bytes);
}

/** The size {@link rememberBatchSize} recorded for a batch (kept for one more reader), else {@link batchSize}. */
export function knownBatchSize(events: readonly Event[]): number {
  return knownSizes.get(events) ?? batchSize(events);
}

/** The size {@link rememberBatchSize} recorded for a fresh batch (and forgets it), else {@link batchSize}. */
export function freshBatchSize(events: readonly Event[]): number {
  const known = knownSizes.get(events);
  if (known === undefined) return batchSize(events);
  knownSizes.delete(events);
  return known;
}

/** Settles every event of a batch (sinks after delivery; transforms for events they drop). */
export function settleAll(events: readonly Event[], status: DeliveryStatus): void {
  for (let i = 0; i < events.length; i++) {
    const m = events[i]!.meta;
    if (m.notifiers) m.settle(status);
  }
}

/** Attaches one notifier to every event of a freshly created batch. */
export function attachNotifier(events: readonly Event[], notifier: BatchNotifier): void {
  notifier.retain(events.length);
  for (const e of events) e.meta.notifiers = [notifier];
}
