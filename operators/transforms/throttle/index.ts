/**
 * `throttle`: rate-limits events per key with GCRA (as Vector's throttle): each key may
 * pass `threshold` events in a burst, then one more every `windowSecs / threshold` seconds as
 * capacity refills. Not a fixed window. Dropped events are settled as delivered (an intentional
 * drop, as in Vector). Time comes from the scheduler, so virtual time drives it in tests.
 */
import { type OperatorFunction, type SchedulerLike, asyncScheduler, filter, map, pipe } from 'rxjs';
import { type Event, type EventBatch, settleAll } from '../../../lib/event.js';
import { type Template, compileTemplate } from '../../../lib/template.js';

/** Hooks for internal events; all optional. */
export interface ThrottleEvents {
  /** An event was dropped; `key` is undefined for the shared bucket. */
  discarded?(key: string | undefined, event: Event): void;
  /** `key_field` did not render (a field is missing): the event uses the shared bucket. */
  templateFailed?(missingFields: string[], event: Event): void;
  /** Wall time spent on one batch, in nanoseconds (`measure_cpu_usage`). */
  batchTimeNs?(ns: number): void;
}

/** Options of {@link throttle}, the throttle config in camelCase. */
export interface ThrottleOptions {
  /** Events allowed per key per window (the burst capacity); > 0. */
  threshold: number;
  /** Window length in seconds; > 0. */
  windowSecs: number;
  /** Template whose rendering names an event's bucket; unset = one shared bucket. */
  keyField?: string;
  /** Events for which this is true pass without touching any bucket. */
  exclude?: (e: Event) => boolean;
  /** Zone for strftime items in `keyField`. */
  timezone?: string;
  scheduler?: SchedulerLike;
  events?: ThrottleEvents;
}

/**
 * GCRA state per key: the theoretical arrival time (ms). An event at `now` conforms when the
 * bucket's TAT is at most `tolerance` ahead of now; each conforming event pushes TAT by one
 * emission interval.
 */
export class KeyedGcra {
  private readonly tat = new Map<string | undefined, number>();
  private readonly intervalMs: number;
  private readonly toleranceMs: number;
  private nextPurgeMs = -Infinity;
  constructor(
    threshold: number,
    private readonly windowMs: number,
  ) {
    if (!(threshold > 0) || !(windowMs > 0)) throw new Error('threshold and window_secs must be non-zero');
    this.intervalMs = windowMs / threshold;
    // a burst of `threshold` back-to-back cells fits: the last one arrives interval*(n-1) early
    this.toleranceMs = this.intervalMs * (threshold - 1);
  }
  /** Takes one cell for `key` at `nowMs` if it conforms. */
  allow(key: string | undefined, nowMs: number): boolean {
    const prev = this.tat.get(key);
    const tat = prev === undefined || prev < nowMs ? nowMs : prev;
    // a thousandth of a microsecond absorbs float error of windowMs / threshold
    if (tat - nowMs > this.toleranceMs + 1e-6) return false;
    this.tat.set(key, tat + this.intervalMs);
    return true;
  }
  /** Forgets keys back at full capacity; runs at most once per window (as Vector purges them). */
  purge(nowMs: number): void {
    if (nowMs < this.nextPurgeMs) return;
    this.nextPurgeMs = nowMs + this.windowMs;
    for (const [k, tat] of this.tat) if (tat <= nowMs) this.tat.delete(k);
  }
  /** Number of tracked keys. */
  get size(): number {
    return this.tat.size;
  }
}

/** A condition that throws counts as false (as in Vector): the event is limited. */
function isExcluded(exclude: (e: Event) => boolean, e: Event): boolean {
  try {
    return exclude(e);
  } catch {
    return false;
  }
}

/** The throttle transform as an operator; never emits an empty batch. */
export function throttle(options: ThrottleOptions): OperatorFunction<EventBatch, EventBatch> {
  const limiter = new KeyedGcra(options.threshold, options.windowSecs * 1000);
  const template: Template | undefined = options.keyField === undefined ? undefined : compileTemplate(options.keyField);
  const scheduler = options.scheduler ?? asyncScheduler;
  const { exclude, timezone, events } = options;
  const timed = events?.batchTimeNs;

  const keyOf = (e: Event): string | undefined => {
    if (!template) return undefined;
    const key = template.render(e, timezone);
    if (key === undefined) events?.templateFailed?.(template.missingFields(e), e);
    return key;
  };

  return pipe(
    map((batch: EventBatch) => {
      const started = timed ? process.hrtime.bigint() : 0n;
      const now = scheduler.now();
      limiter.purge(now);
      let kept: Event[] | undefined;
      let dropped: Event[] | undefined;
      for (let i = 0; i < batch.length; i++) {
        const e = batch[i]!;
        if (exclude && isExcluded(exclude, e)) {
          kept?.push(e);
          continue;
        }
        const key = keyOf(e);
        if (limiter.allow(key, now)) {
          kept?.push(e);
          continue;
        }
        // first drop: copy the events kept so far; until then the batch is passed as is
        kept ??= batch.slice(0, i);
        (dropped ??= []).push(e);
        events?.discarded?.(key, e);
      }
      if (dropped) settleAll(dropped, 'delivered');
      if (timed) timed(Number(process.hrtime.bigint() - started));
      return kept ?? batch;
    }),
    filter((b) => b.length > 0),
  );
}
