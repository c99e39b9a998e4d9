/**
 * Batching for sinks (`batch.*`): flush on whichever limit comes first.
 * Timers run on the given scheduler, so marble tests drive them in virtual time.
 */
import { Observable, type OperatorFunction, type SchedulerLike, type Subscription, asyncScheduler, map } from 'rxjs';

/** Derived batch limits; `Infinity` when a sink has no such limit. */
export interface BatchLimits {
  readonly maxEvents: number;
  readonly maxBytes: number;
  readonly timeoutMs: number;
}

/** `batch.*` options (snake_case, as configured) to {@link BatchLimits}. */
export function batchLimits(batch: { max_events?: number | undefined; max_bytes?: number | undefined; timeout_secs: number }): BatchLimits {
  return {
    maxEvents: batch.max_events ?? Infinity,
    maxBytes: batch.max_bytes ?? Infinity,
    timeoutMs: batch.timeout_secs * 1000,
  };
}

/** One flushed batch of a partitioned stream. */
export interface Partition<K, T> {
  readonly key: K;
  readonly items: T[];
}

class OpenBatch<T> {
  items: T[] = [];
  bytes = 0;
  timer: Subscription | undefined = undefined;
}

/**
 * Core of every batching operator: slices incoming arrays into batches per key.
 * A first item always fits, so an item larger than `maxBytes` alone becomes a batch of one.
 */
function partitioned<T, K>(
  limits: BatchLimits,
  sizeOf: (item: T) => number,
  keyOf: ((item: T) => K) | undefined,
  scheduler: SchedulerLike,
): OperatorFunction<readonly T[], Partition<K, T>> {
  return (source) =>
    new Observable<Partition<K, T>>((subscriber) => {
      const open = new Map<K, OpenBatch<T>>();
      const flush = (key: K, b: OpenBatch<T>) => {
        b.timer?.unsubscribe();
        open.delete(key);
        if (b.items.length === 0) return; // never an empty batch
        subscriber.next({ key, items: b.items });
      };
      const upstream = source.subscribe({
        next(chunk) {
          for (let i = 0; i < chunk.length; i++) {
            const item = chunk[i]!;
            const key = keyOf ? keyOf(item) : (undefined as K);
            const size = sizeOf(item);
            let b = open.get(key);
            // would overflow max_bytes: close the open batch first
            if (b && b.bytes + size > limits.maxBytes) {
              flush(key, b);
              b = undefined;
            }
            if (!b) {
              const fresh = new OpenBatch<T>();
              open.set(key, fresh);
              // the age limit counts from the first item of the batch, as in Vector, not a periodic tick
              fresh.timer = scheduler.schedule(() => {
                if (open.get(key) === fresh) flush(key, fresh);
              }, limits.timeoutMs);
              b = fresh;
            }
            b.items.push(item);
            b.bytes += size;
            if (b.items.length >= limits.maxEvents || b.bytes >= limits.maxBytes) flush(key, b);
          }
        },
        error: (err) => subscriber.error(err),
        complete: () => {
          for (const [k, b] of [...open]) flush(k, b);
          subscriber.complete();
        },
      });
      return () => {
        upstream.unsubscribe();
        for (const b of open.values()) b.timer?.unsubscribe();
        open.clear();
      };
    });
}

/** Re-slices incoming arrays (EventBatch) into batches within `limits`; never emits an empty batch. */
export function rebatch<T>(
  limits: BatchLimits,
  sizeOf: (item: T) => number,
  scheduler: SchedulerLike = asyncScheduler,
): OperatorFunction<readonly T[], T[]> {
  return (source) => source.pipe(partitioned<T, undefined>(limits, sizeOf, undefined, scheduler), map((p) => p.items));
}

/** Like {@link rebatch} with one open batch (own timer, own limits) per key. */
export function rebatchBy<T, K>(
  limits: BatchLimits,
  sizeOf: (item: T) => number,
  keyOf: (item: T) => K,
  scheduler: SchedulerLike = asyncScheduler,
): OperatorFunction<readonly T[], Partition<K, T>> {
  return partitioned(limits, sizeOf, keyOf, scheduler);
}

/** Batches single items; never emits an empty batch, flushes the rest on completion. */
export function batchBy<T>(
  limits: BatchLimits,
  sizeOf: (item: T) => number,
  scheduler: SchedulerLike = asyncScheduler,
): OperatorFunction<T, T[]> {
  return (source) => source.pipe(map((item) => [item]), rebatch(limits, sizeOf, scheduler));
}
