/**
 * The `aggregate` transform as an operator: metrics of one series (name, namespace and tags, as
 * Vector's `MetricSeries`) are combined per the mode and flushed every interval through the
 * scheduler, and once more when the input completes. Metrics a mode does not apply to pass at once.
 */
import { Observable, type OperatorFunction, type SchedulerLike, interval } from 'rxjs';
import { type Event, type EventBatch, MetricEvent, EventMetadata, settleAll } from '../../../lib/event.js';
import { seriesKey } from '../../shared/metrics/series.js';
import type { AggregationMode } from './config.js';
import type { AggregateEvents } from './events.js';
import { subtractValue, updateMetric, widenTime } from './values.js';

/** What {@link aggregate} needs. */
export interface AggregateOptions {
  readonly intervalMs: number;
  readonly mode: AggregationMode;
  readonly scheduler: SchedulerLike;
  readonly events: AggregateEvents;
}

/** The values of one series kept for the mean and the standard deviation. */
interface Gauges {
  readonly first: MetricEvent;
  readonly values: number[];
}

/** Mutable aggregation state; `record` returns the metric when it passes through. */
class Aggregator {
  private map = new Map<string, MetricEvent>();
  private multi = new Map<string, Gauges>();
  /** Diff: the values of the previous flush, unchanged by the subtraction. */
  private prev = new Map<string, MetricEvent>();

  constructor(
    private readonly mode: AggregationMode,
    private readonly events: AggregateEvents,
  ) {}

  get isEmpty(): boolean {
    return this.map.size === 0 && this.multi.size === 0;
  }

  record(m: MetricEvent): MetricEvent | undefined {
    const mode = this.mode;
    const incremental = m.kind === 'incremental';
    if (mode === 'Sum' ? !incremental : mode !== 'Auto' && mode !== 'Count' && incremental) return m;
    const key = seriesKey(m);
    if (incremental && (mode === 'Auto' || mode === 'Sum')) this.sum(key, m);
    else if (mode === 'Auto' || mode === 'Latest' || mode === 'Diff') this.replace(key, m);
    else if (mode === 'Count') this.count(key, m);
    else if (mode === 'Max' || mode === 'Min') this.compare(key, m);
    else if (m.value.type === 'gauge') {
      const g = this.multi.get(key);
      if (g) {
        g.values.push(m.value.value);
        g.first.meta.absorb(m.meta);
        // the mean's time spans every value, as Vector sums them with their timestamps
        widenTime(g.first, m);
      } else this.multi.set(key, { first: m, values: [m.value.value] });
    } else {
      // Mean and Stdev keep only gauges: another absolute value has no mean, and is dropped as Vector drops it
      settleAll([m], 'delivered');
      this.events.discarded();
    }
    this.events.recorded();
    return undefined;
  }

  private sum(key: string, m: MetricEvent): void {
    const acc = this.map.get(key);
    if (!acc) this.map.set(key, m);
    else if (acc.kind === m.kind && updateMetric(acc, m)) acc.meta.absorb(m.meta);
    else {
      this.events.updateFailed();
      this.replace(key, m);
    }
  }

  private replace(key: string, m: MetricEvent): void {
    const old = this.map.get(key);
    // the newer value stands for the older one: its acknowledgement completes with it
    if (old) m.meta.absorb(old.meta);
    this.map.set(key, m);
  }

  private count(key: string, m: MetricEvent): void {
    let acc = this.map.get(key);
    if (!acc) {
      acc = new MetricEvent(m.name, m.kind, { type: 'counter', value: 0 }, new EventMetadata(m.meta.sourceId, m.meta.sourceType), m.namespace, m.tags, m.timestamp, m.intervalMs);
      this.map.set(key, acc);
    }
    acc.meta.absorb(m.meta);
    if (acc.kind !== m.kind || !updateMetric(acc, { value: { type: 'counter', value: 1 }, timestamp: m.timestamp, intervalMs: m.intervalMs })) this.events.updateFailed();
  }

  private compare(key: string, m: MetricEvent): void {
    const acc = this.map.get(key);
    if (!acc) return void this.map.set(key, m);
    const a = acc.value;
    const b = m.value;
    // only gauges compare; any other value keeps the first one seen
    const better = a.type === 'gauge' && b.type === 'gauge' && (this.mode === 'Max' ? b.value > a.value : b.value < a.value);
    if (better) this.replace(key, m);
    else acc.meta.absorb(m.meta);
  }

  /** Everything aggregated since the last flush; the state starts over (Diff keeps its reference values). */
  flush(): MetricEvent[] {
    const out: MetricEvent[] = [];
    const map = this.map;
    this.map = new Map();
    if (this.mode === 'Diff') {
      const prev = this.prev;
      const next = new Map<string, MetricEvent>();
      for (const [key, m] of map) {
        // the reference keeps the value before subtraction, and none of the flushed event's acknowledgements
        next.set(key, new MetricEvent(m.name, m.kind, structuredClone(m.value), new EventMetadata(m.meta.sourceId, m.meta.sourceType)));
        const p = prev.get(key);
        if (p && p.kind === m.kind && !subtractValue(m.value, p.value)) this.events.updateFailed();
        out.push(m);
      }
      this.prev = next;
    } else for (const m of map.values()) out.push(m);
    if (this.multi.size > 0) {
      const multi = this.multi;
      this.multi = new Map();
      for (const g of multi.values()) out.push(this.statistic(g));
    }
    this.events.flushed();
    return out;
  }

  private statistic(g: Gauges): MetricEvent {
    const n = g.values.length;
    let sum = 0;
    for (const x of g.values) sum += x;
    const mean = sum / n;
    let value = mean;
    if (this.mode === 'Stdev') {
      let sq = 0;
      for (const x of g.values) sq += (x - mean) * (x - mean);
      // population deviation, as Vector divides by the number of values
      value = Math.sqrt(sq / n);
    }
    g.first.value = { type: 'gauge', value };
    return g.first;
  }
}

/** Aggregates metric events; log events never reach it (its input type is metric) and pass unchanged if they do. */
export function aggregate(options: AggregateOptions): OperatorFunction<EventBatch, EventBatch> {
  return (source) =>
    new Observable<EventBatch>((subscriber) => {
      const state = new Aggregator(options.mode, options.events);
      const flush = () => {
        if (state.isEmpty) {
          options.events.flushed();
          return;
        }
        subscriber.next(state.flush());
      };
      const ticks = interval(options.intervalMs, options.scheduler).subscribe(flush);
      const upstream = source.subscribe({
        next(batch) {
          let passed: Event[] | undefined;
          for (let i = 0; i < batch.length; i++) {
            const e = batch[i]!;
            const out = e.type === 'metric' ? state.record(e) : e;
            if (out) (passed ??= []).push(out);
          }
          if (passed) subscriber.next(passed);
        },
        error: (err) => subscriber.error(err),
        complete() {
          ticks.unsubscribe();
          flush();
          subscriber.complete();
        },
      });
      return () => {
        ticks.unsubscribe();
        upstream.unsubscribe();
      };
    });
}

