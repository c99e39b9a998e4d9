/**
 * Concurrency limits for outbound requests (`request.concurrency`): a fixed limit,
 * or adaptive request concurrency (ARC) exactly as Vector's controller runs it: additive
 * increase by one permit per interval, multiplicative decrease, driven by an EWMA of the RTT.
 */
import type { SchedulerLike } from 'rxjs';
import type { Gauge } from '../lib/telemetry/registry.js';

/** How a finished request informs the controller (its classification of the final result). */
export type Outcome =
  /** Classified successful: its RTT is a sample. */
  | 'ok'
  /** Retry-classified response, retriable error or timeout after the retry layer gave up. */
  | 'backpressure'
  /** Neither (a permanent rejection): no sample, no back-pressure. */
  | 'other';

/** Decides how many requests may be in flight; `inFlight` calls it around every request. */
export interface ConcurrencyController {
  /** Current limit (may change after any {@link release}). */
  readonly limit: number;
  readonly inFlight: number;
  /** A request starts; returns its start time (scheduler ms). */
  acquire(): number;
  /** A request finished. */
  release(startedAt: number, outcome: Outcome): void;
}

/** Optional gauges, named as Vector names them. */
export interface ConcurrencyGauges {
  limit?: Gauge;
  inFlight?: Gauge;
  /** Seconds. */
  observedRtt?: Gauge;
  /** Seconds. */
  averagedRtt?: Gauge;
}

/** A limit that never moves; RTTs are still observed for the gauges. */
export class FixedConcurrency implements ConcurrencyController {
  inFlight = 0;
  constructor(
    readonly limit: number,
    private readonly scheduler: SchedulerLike,
    private readonly gauges: ConcurrencyGauges = {},
  ) {
    gauges.limit?.set(limit);
  }
  acquire(): number {
    this.inFlight++;
    this.gauges.inFlight?.set(this.inFlight);
    return this.scheduler.now();
  }
  release(startedAt: number, _outcome?: Outcome): void {
    this.inFlight--;
    this.gauges.inFlight?.set(this.inFlight);
    this.gauges.observedRtt?.set((this.scheduler.now() - startedAt) / 1000);
  }
}

export interface AdaptiveOptions {
  readonly decreaseRatio: number;
  readonly ewmaAlpha: number;
  readonly rttDeviationScale: number;
  readonly initialConcurrency: number;
  readonly maxConcurrency: number;
}

/** ARC, as Vector implements it. Times come from the scheduler, so tests run in virtual time. */
export class AdaptiveConcurrency implements ConcurrencyController {
  limit: number;
  inFlight = 0;
  /** EWMA of past interval means; undefined until the first sample seeds it. */
  private mean: number | undefined = undefined;
  private variance = 0;
  /** Running mean of the RTTs of the current interval. */
  private intervalSum = 0;
  private intervalCount = 0;
  private hadBackPressure = false;
  private reachedLimit = false;
  private nextUpdate = 0;

  constructor(
    private readonly opts: AdaptiveOptions,
    private readonly scheduler: SchedulerLike,
    private readonly gauges: ConcurrencyGauges = {},
  ) {
    this.limit = Math.max(1, Math.min(opts.initialConcurrency, opts.maxConcurrency));
    gauges.limit?.set(this.limit);
  }

  /** The EWMA mean RTT in ms (undefined before the first sample). */
  get averagedRttMs(): number | undefined {
    return this.mean;
  }

  acquire(): number {
    this.inFlight++;
    if (this.inFlight >= this.limit) this.reachedLimit = true;
    this.gauges.inFlight?.set(this.inFlight);
    return this.scheduler.now();
  }

  release(startedAt: number, outcome: Outcome): void {
    const now = this.scheduler.now();
    const rtt = now - startedAt;
    this.inFlight--;
    this.gauges.inFlight?.set(this.inFlight);
    this.gauges.observedRtt?.set(rtt / 1000);
    if (outcome === 'backpressure') this.hadBackPressure = true;
    if (outcome === 'ok') {
      this.intervalSum += rtt;
      this.intervalCount++;
    }
    const m = this.intervalCount > 0 ? this.intervalSum / this.intervalCount : undefined;
    if (this.mean === undefined) {
      // seeding: the interval's samples and flags are kept for the first real interval
      if (m !== undefined) {
        this.mean = m;
        this.variance = 0;
        this.nextUpdate = now + m;
      }
      return;
    }
    if (now < this.nextUpdate) return;
    this.adjust(m);
    if (m !== undefined) {
      const d = m - this.mean;
      const inc = this.opts.ewmaAlpha * d;
      this.mean += inc;
      this.variance = (1 - this.opts.ewmaAlpha) * (this.variance + d * inc);
    }
    this.gauges.averagedRtt?.set(this.mean / 1000);
    this.nextUpdate = now + this.mean;
    this.intervalSum = 0;
    this.intervalCount = 0;
    this.hadBackPressure = false;
    this.reachedLimit = false;
  }

  private adjust(m: number | undefined): void {
    const mean = this.mean!;
    const threshold = Math.sqrt(this.variance) * this.opts.rttDeviationScale;
    if (this.limit < this.opts.maxConcurrency && this.reachedLimit && !this.hadBackPressure && m !== undefined && m <= mean) {
      this.limit += 1;
    } else if (this.limit > 1 && (this.hadBackPressure || (m ?? 0) >= mean + threshold)) {
      this.limit = Math.max(1, Math.floor(this.limit * this.opts.decreaseRatio));
    } else return;
    this.gauges.limit?.set(this.limit);
  }
}

/** The `request.concurrency` and `request.adaptive_concurrency` options, as validated. */
export interface ConcurrencyOptions {
  readonly concurrency: number | 'adaptive' | 'none';
  readonly adaptive_concurrency: {
    readonly decrease_ratio: number;
    readonly ewma_alpha: number;
    readonly rtt_deviation_scale: number;
    readonly initial_concurrency: number;
    readonly max_concurrency_limit: number;
  };
}

/** The controller `request.concurrency` asks for: N fixed, `none` = 1, `adaptive` = ARC. */
export function concurrencyController(request: ConcurrencyOptions, scheduler: SchedulerLike, gauges: ConcurrencyGauges = {}): ConcurrencyController {
  if (request.concurrency === 'none') return new FixedConcurrency(1, scheduler, gauges);
  if (typeof request.concurrency === 'number') return new FixedConcurrency(request.concurrency, scheduler, gauges);
  const a = request.adaptive_concurrency;
  return new AdaptiveConcurrency(
    {
      decreaseRatio: a.decrease_ratio,
      ewmaAlpha: a.ewma_alpha,
      rttDeviationScale: a.rtt_deviation_scale,
      initialConcurrency: a.initial_concurrency,
      maxConcurrency: a.max_concurrency_limit,
    },
    scheduler,
    gauges,
  );
}
