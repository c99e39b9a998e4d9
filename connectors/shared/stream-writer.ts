/**
 * The skeleton of the stream sinks (console, file, socket): batches are written one after the
 * other, each reported as {@link Delivery} once its write finished; the sink's demand gate closes
 * while `maxQueued` batches wait (so events wait in the edge buffer, not here); on completion of
 * the input the sink flushes, then completes. A sink may hold encoded data back across
 * batches (`held`): it is written by a timer on the sink's scheduler, or at the end, and its events
 * are reported then.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { Observable, type OperatorFunction, type Subscription } from 'rxjs';
import type { SinkContext } from '../../lib/component.js';
import type { Delivery, Event, EventBatch } from '../../lib/event.js';
import type { EncodedBatch } from '../../lib/codecs/batch.js';
import type { SinkEvents } from './sink-events.js';

/** The steps a stream sink supplies to {@link serialWriter}. */
export interface SerialWriterOptions {
  /** Writes one batch; resolves with its deliveries (a rejection ends the batch `errored`; the sink goes on). */
  write(batch: EventBatch): Promise<readonly Delivery[]>;
  /** After the last batch, before completing (close files, end sockets). */
  flush?(): Promise<void>;
  /** On unsubscribe without completion (stop now). */
  dispose?(): void;
  /** Batches accepted before the demand gate closes. */
  maxQueued?: number;
  /** Data a write held back instead of writing it (see {@link HeldOptions}). */
  held?: HeldOptions;
}

/** How a sink that holds data back across batches has it written. */
export interface HeldOptions {
  /** Milliseconds from a write that left data held to the write of everything held. */
  readonly afterMs: number;
  /** True while some data is held. */
  holds(): boolean;
  /** Writes everything held; resolves with its deliveries (never rejects: failures are deliveries). */
  writeHeld(): Promise<readonly Delivery[]>;
}

/** Sequential batch writer as a sink operator. */
export function serialWriter(ctx: SinkContext, opts: SerialWriterOptions): OperatorFunction<EventBatch, Delivery> {
  const maxQueued = opts.maxQueued ?? 2;
  return (source) =>
    new Observable<Delivery>((subscriber) => {
      let chain: Promise<unknown> = Promise.resolve();
      let queued = 0;
      let finished = false;
      let ending = false;
      let heldTimer: Subscription | undefined;
      const emit = (deliveries: readonly Delivery[]) => {
        for (const d of deliveries) subscriber.next(d);
      };
      const held = opts.held;
      // one timer at a time: data held after a write waits at most `afterMs`, then goes behind the queued writes
      const armHeld = () => {
        if (!held || ending || heldTimer || !held.holds()) return;
        heldTimer = ctx.scheduler.schedule(() => {
          heldTimer = undefined;
          chain = chain.then(() => held.writeHeld()).then(
            (deliveries) => {
              emit(deliveries);
              armHeld();
            },
            // never ends the chain: the batches queued behind still get written
            (err: unknown) => ctx.log.error('Writing held data failed.', { error: (err as Error).message }),
          );
        }, held.afterMs);
      };
      // a write that fails unexpectedly ends its own events `errored` (reported, counted), never the sink
      const writeOrFail = (batch: EventBatch): Promise<readonly Delivery[]> =>
        opts.write(batch).catch((err: unknown) => {
          ctx.log.error('Write failed; events not delivered.', { error: (err as Error).message, events: batch.length });
          return [{ status: 'errored', events: batch, bytes: 0 }];
        });
      const upstream = source.subscribe({
        next(batch) {
          if (++queued >= maxQueued) ctx.demand.close();
          chain = chain
            .then(() => writeOrFail(batch))
            .then((deliveries) => {
              emit(deliveries);
              armHeld();
            })
            .finally(() => {
              if (--queued < maxQueued) ctx.demand.open();
            });
        },
        error: (err) => subscriber.error(err),
        complete() {
          ending = true;
          heldTimer?.unsubscribe();
          chain = chain
            .then(async () => emit((await held?.writeHeld()) ?? []))
            .then(() => opts.flush?.())
            .then(
              () => {
                finished = true;
                subscriber.complete();
              },
              (err: unknown) => subscriber.error(err),
            );
        },
      });
      return () => {
        heldTimer?.unsubscribe();
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

/** Counts and logs events a codec rejected (`component_errors_total`, stage `sending`). */
export function reportEncodeFailures(events: SinkEvents, failed: readonly Event[], reason: string | undefined): void {
  if (failed.length > 0) events.encodeFailed(new Error(reason ?? 'unknown'), failed.length);
}

/**
 * Writes `bytes` and resolves once the stream took them and, when its buffer was full, drained;
 * rejects if the stream fails or closes first (a closed socket never calls back).
 */
export function writeAndDrain(stream: Writable, bytes: Buffer): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let accepted = true;
    const written = new Promise<void>((res, rej) => {
      accepted = stream.write(bytes, (err) => (err ? rej(err) : res()));
    });
    const onClose = () => reject(new Error('stream closed while writing'));
    stream.once('close', onClose);
    // a full stream buffer: wait for drain before taking the next batch
    (accepted ? written : Promise.all([written, once(stream, 'drain')])).then(
      () => {
        stream.off('close', onClose);
        resolve();
      },
      (err: Error) => {
        stream.off('close', onClose);
        reject(err);
      },
    );
  });
}
