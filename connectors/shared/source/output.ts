/**
 * What a source does with the events it read, in one place: count the bytes it took off the
 * wire (`component_received_bytes_total`, Vector's name), record how old each event's timestamp
 * was on arrival (`source_lag_time_seconds`), emit the batch on its output, and, when a sink
 * downstream asks for end-to-end acknowledgements, tell the source how the batch settled.
 */
import type { Subscriber } from 'rxjs';
import type { SourceContext } from '../../../lib/component.js';
import { BatchNotifier, type DeliveryStatus, type EventBatch, type RoutedBatch, attachNotifier } from '../../../lib/event.js';
import type { Counter, Histogram } from '../../../lib/telemetry/registry.js';
import { Timestamp } from '../../../lib/value.js';

/** How a batch ended, called once per batch. */
export type Settled = (status: DeliveryStatus) => void;

/** What a source declares about its output. */
export interface SourceOutputOptions {
  /** Named output (`logs`); default output when absent. */
  readonly output?: string | undefined;
  /** `protocol` tag of the received-bytes counter (`tcp`, `http`), as Vector tags it. */
  readonly protocol?: string | undefined;
  /** Field whose timestamp gives the lag; none: the source records no lag. */
  readonly lagKey?: string | undefined;
  /** Waits for delivery even when no sink asks (a source's own `acknowledgements.enabled`). */
  readonly acknowledgements?: boolean | undefined;
}

/** A part of a batch that settles on its own (one queue message's events). */
export interface SettledPart {
  readonly events: EventBatch;
  readonly settled: Settled;
}

/** One source subscription's output: accounting, emission and settlement. */
export class SourceOutput {
  private readonly bytes: Counter;
  private readonly lag: Histogram | undefined;
  /** Whether a sink downstream waits for delivery before the source answers, deletes or checkpoints. */
  readonly acknowledges: boolean;

  constructor(
    private readonly ctx: SourceContext,
    private readonly subscriber: Subscriber<EventBatch | RoutedBatch>,
    private readonly options: SourceOutputOptions = {},
  ) {
    this.bytes = ctx.telemetry.counter('component_received_bytes_total', options.protocol !== undefined ? { protocol: options.protocol } : undefined);
    this.lag = options.lagKey !== undefined ? ctx.telemetry.histogram('source_lag_time_seconds') : undefined;
    this.acknowledges = ctx.acknowledgements || options.acknowledgements === true;
  }

  /** False while a blocking buffer downstream is full: a push source pauses, a pull source waits. */
  get isOpen(): boolean {
    return this.ctx.out.isOpen;
  }

  /** Bytes taken off the wire (or out of a file, a message body, a process's output). */
  received(bytes: number): void {
    this.bytes.add(bytes);
  }

  /** Emits a batch (never an empty one) with no interest in how it settles. */
  emit(batch: EventBatch): void {
    if (batch.length === 0) return;
    if (this.lag !== undefined) this.recordLag(batch);
    const name = this.options.output;
    this.subscriber.next(name === undefined ? batch : { output: name, events: batch });
  }

  /**
   * Emits a batch and calls `settled` once: with acknowledgements when every copy of every event
   * settled (the worst status), without them right after the events entered the buffers downstream
   * (`delivered`). An empty batch settles `delivered` at once.
   */
  emitSettled(batch: EventBatch, settled: Settled): void {
    if (batch.length === 0) return settled('delivered');
    if (!this.acknowledges) {
      this.emit(batch);
      return settled('delivered');
    }
    attachNotifier(batch, new BatchNotifier(settled));
    this.emit(batch);
  }

  /** {@link emitSettled} for request/reply protocols: the status, or a promise of it with acknowledgements. */
  emitAwait(batch: EventBatch): DeliveryStatus | Promise<DeliveryStatus> {
    if (batch.length === 0 || !this.acknowledges) {
      this.emit(batch);
      return 'delivered';
    }
    return new Promise((resolve) => this.emitSettled(batch, resolve));
  }

  /**
   * Emits the parts as one batch; each part settles on its own (unordered settlement: a queue
   * deletes each message once its own events were delivered). Without acknowledgements every
   * part settles `delivered` right after the emission; a part with no event settles at once.
   */
  emitEach(parts: readonly SettledPart[]): void {
    const batch: EventBatch = [];
    for (const part of parts) {
      if (part.events.length === 0) part.settled('delivered');
      else {
        if (this.acknowledges) attachNotifier(part.events, new BatchNotifier(part.settled));
        for (let i = 0; i < part.events.length; i++) batch.push(part.events[i]!);
      }
    }
    this.emit(batch);
    if (!this.acknowledges) for (const part of parts) if (part.events.length > 0) part.settled('delivered');
  }

  /** The source ended by itself (end of input). */
  complete(): void {
    this.subscriber.complete();
  }

  /** The source cannot go on (it could not start, its input failed for good). */
  fail(err: unknown): void {
    this.subscriber.error(err);
  }

  private recordLag(batch: EventBatch): void {
    const key = this.options.lagKey as string;
    const now = this.ctx.scheduler.now();
    const lag = this.lag as Histogram;
    for (let i = 0; i < batch.length; i++) {
      const e = batch[i]!;
      // a record may carry its own `timestamp` of another kind: no lag for it
      const t = e.type === 'log' ? e.fields[key] : undefined;
      if (t instanceof Timestamp) lag.record(Math.max(0, now - t.ms) / 1000);
    }
  }
}

/**
 * Counts batches (or parts) still waiting to settle, for a source that must know when the last
 * one answered: a connection closes after its last acknowledgement, a client is released after
 * its last delete.
 */
export class Unsettled {
  private n = 0;
  /** Batches wrapped and not yet settled. */
  get count(): number {
    return this.n;
  }
  /** Counts one more; the returned callback uncounts it, then calls `settled`. */
  wrap(settled: Settled): Settled {
    this.n++;
    return (status) => {
      this.n--;
      settled(status);
    };
  }
}

