/**
 * The skeleton of the stream sinks (console, file, socket): batches are written one after the
 * other, each reported as {@link Delivery} once its write finished; the sink's demand gate closes
 * while `maxQueued` batches wait (so events wait in the edge buffer, not here); on completion of
 * the input the sink flushes, then completes.
 */
import { Observable, type OperatorFunction } from 'rxjs';
import type { SinkContext } from '../../lib/component.js';
import type { Delivery, Event, EventBatch } from '../../lib/event.js';
import type { EncodedBatch } from '../../lib/codecs/batch.js';

/** The steps a stream sink supplies to {@link serialWriter}. */
export interface SerialWriterOptions {
  /** Writes one batch; resolves with its deliveries (rejects = the sink fails). */
  write(batch: EventBatch): Promise<readonly Delivery[]>;
  /** After the last batch, before completing (close files, end sockets). */
  flush?(): Promise<void>;
  /** On unsubscribe without completion (stop now). */
  dispose?(): void;
  /** Batches accepted before the demand gate closes. */
  maxQueued?: number;
}

/** Sequential batch writer as a sink operator. */
export function serialWriter(ctx: SinkContext, opts: SerialWriterOptions): OperatorFunction<EventBatch, Delivery> {
  const maxQueued = opts.maxQueued ?? 2;
  return (source) =>
    new Observable<Delivery>((subscriber) => {
      let chain: Promise<unknown> = Promise.resolve();
      let queued = 0;
      let failed = false;
      let finished = false;
      const fail = (err: unknown) => {
        failed = true;
        subscriber.error(err);
      };
      const upstream = source.subscribe({
        next(batch) {
          if (failed) return;
          if (++queued >= maxQueued) ctx.demand.close();
          chain = chain
            .then(() => (failed ? [] : opts.write(batch)))
            .then((deliveries) => {
              for (const d of deliveries) subscriber.next(d);
            }, fail)
            .finally(() => {
              if (--queued < maxQueued) ctx.demand.open();
            });
        },
        error: fail,
        complete() {
          chain = chain
            .then(() => opts.flush?.())
            .then(() => {
              finished = true;
              subscriber.complete();
            }, fail);
        },
      });
      return () => {
        upstream.unsubscribe();
        ctx.demand.open();
        if (!finished) opts.dispose?.();
      };
    });
}

/** Deliveries for an encoded batch: the written events, and the ones the codec rejected. */
export function deliveriesOf(encoded: EncodedBatch, bytesWritten: number, status: Delivery['status'] = 'delivered'): Delivery[] {
  const out: Delivery[] = [];
  if (encoded.encoded.length > 0) out.push({ status, events: encoded.encoded, bytes: status === 'delivered' ? bytesWritten : 0 });
  if (encoded.failed.length > 0) out.push({ status: 'rejected', events: encoded.failed, bytes: 0 });
  return out;
}

/** Counts and logs events a codec rejected (spec 01 §6 component_errors_total). */
export function reportEncodeFailures(ctx: SinkContext, failed: readonly Event[], reason: string | undefined): void {
  if (failed.length === 0) return;
  ctx.telemetry.counter('component_errors_total', { error_type: 'encoder_failed', stage: 'sending' }).add(failed.length);
  ctx.log.warn('Failed encoding event; dropped.', { error: reason ?? 'unknown', dropped: failed.length });
}
