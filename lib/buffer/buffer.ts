/**
 * The edge buffer in front of each sink: the one place where events wait.
 * Memory and disk buffers share this interface, so sinks do not know which they have.
 */
import type { EventBatch } from '../event.js';
import type { Gate } from '../gate.js';
import type { ComponentTelemetry, Counter, Gauge, MetricTags } from '../telemetry/registry.js';

export type WhenFull = 'block' | 'drop_newest';

export interface EdgeBuffer {
  /** Closed while full with `when_full = block`; producers upstream wait on it. */
  readonly gate: Gate;
  /** Events currently held. */
  readonly length: number;
  /**
   * Accepts a batch from the push side. Never refuses under `block` (the gate already asked the
   * producers to stop, an in-flight chunk still lands); under `drop_newest` drops what does not fit.
   */
  push(events: EventBatch, bytes?: number): void;
  /**
   * Takes up to `max` events, waiting while empty. Resolves undefined once the buffer is closed
   * and empty (or the reader was released).
   */
  pull(max: number): Promise<EventBatch | undefined>;
  /** No more pushes; pulls drain what is left, then resolve undefined. */
  close(): void;
  /** Wakes a waiting pull with undefined without closing (the reader changes on reload). */
  release(): void;
  /** Frees resources (disk handles); called when the sink is removed for good. */
  dispose(): Promise<void>;
}

/** Vector's `buffer_*` metrics, bound once per buffer stage (`tags` carries its `stage` index). */
export class BufferMetrics {
  readonly events: Gauge;
  readonly bytes: Gauge;
  readonly receivedEvents: Counter;
  readonly receivedBytes: Counter;
  readonly sentEvents: Counter;
  readonly sentBytes: Counter;
  readonly discarded: Counter;
  constructor(t: ComponentTelemetry, tags?: MetricTags) {
    this.events = t.gauge('buffer_events', tags);
    this.bytes = t.gauge('buffer_byte_size', tags);
    this.receivedEvents = t.counter('buffer_received_events_total', tags);
    this.receivedBytes = t.counter('buffer_received_event_bytes_total', tags);
    this.sentEvents = t.counter('buffer_sent_events_total', tags);
    this.sentBytes = t.counter('buffer_sent_event_bytes_total', tags);
    this.discarded = t.counter('buffer_discarded_events_total', tags);
  }
}
