/** Helpers of the HEC sink specs: metric events, a virtual clock for real sockets, delivery counts. */
import { VirtualTimeScheduler } from 'rxjs';
import { type Delivery, EventMetadata, MetricEvent, type MetricKind, type MetricValue, type Tags } from '../../../../lib/event.js';
import { Timestamp } from '../../../../lib/value.js';

/** 2023-11-14T22:13:20.123Z plus 456789 ns: the envelope time keeps milliseconds only. */
export const T0 = new Timestamp(1_700_000_000_123, 456_789);

export interface MetricOpts {
  kind?: MetricKind;
  namespace?: string;
  tags?: Tags;
  /** null: no timestamp. */
  timestamp?: Timestamp | null;
  intervalMs?: number;
}

/** A metric event; incremental by default, at {@link T0}. */
export function metric(name: string, value: MetricValue, o: MetricOpts = {}): MetricEvent {
  const ts = o.timestamp === null ? undefined : (o.timestamp ?? T0);
  return new MetricEvent(name, o.kind ?? 'incremental', value, new EventMetadata('in', 'test'), o.namespace, o.tags, ts, o.intervalMs);
}

export const counter = (name: string, value: number, o: MetricOpts = {}) => metric(name, { type: 'counter', value }, o);
export const gauge = (name: string, value: number, o: MetricOpts = {}) => metric(name, { type: 'gauge', value }, { kind: 'absolute', ...o });

/** One metric of every other value type, the ones `siem_hec_metrics` cannot send. */
export const otherKinds = (): MetricEvent[] => [
  metric('s', { type: 'set', values: ['b', 'a', 'b'] }),
  metric('d', { type: 'distribution', samples: [{ value: 1.5, rate: 2 }], statistic: 'histogram' }),
  metric('h', { type: 'aggregated_histogram', buckets: [{ upper_limit: 1, count: 2 }], count: 2, sum: 1.5 }, { kind: 'absolute' }),
  metric('q', { type: 'aggregated_summary', quantiles: [{ quantile: 0.5, value: 3 }], count: 4, sum: 10 }, { kind: 'absolute' }),
];

/** Events per status over all deliveries. */
export const count = (ds: readonly Delivery[], status: Delivery['status']) => ds.filter((d) => d.status === status).reduce((n, d) => n + d.events.length, 0);

/** Names of the metrics delivered with `status`, sorted. */
export const namesWith = (ds: readonly Delivery[], status: Delivery['status']) =>
  ds
    .filter((d) => d.status === status)
    .flatMap((d) => d.events.map((e) => (e as MetricEvent).name))
    .sort();

/**
 * Virtual time: timers run only when the test advances the clock; between timers, promise chains
 * settle. Tests with real sockets wait for what they expect with `until` after advancing.
 */
export class Clock {
  readonly scheduler = new VirtualTimeScheduler();
  get now(): number {
    return this.scheduler.now();
  }
  /** Lets promise chains run. */
  async settle(turns = 10): Promise<void> {
    for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
  }
  /** Runs every action due up to `t` (absolute ms) in time order, settling after each. */
  async advanceTo(t: number): Promise<void> {
    await this.settle();
    for (;;) {
      const next = this.scheduler.actions[0];
      if (!next || next.delay > t) break;
      this.scheduler.maxFrames = next.delay;
      this.scheduler.flush();
      await this.settle();
    }
    this.scheduler.frame = Math.max(this.scheduler.frame, t);
    this.scheduler.maxFrames = Number.POSITIVE_INFINITY;
  }
  /** Advances by `ms` from now. */
  advance(ms: number): Promise<void> {
    return this.advanceTo(this.now + ms);
  }
}
