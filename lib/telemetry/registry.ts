/**
 * The one registry of internal metrics (Vector's names and tags). Components bind a handle once, with their
 * tags, and call `add`/`set` on the hot path: a bound handle is a plain object field update.
 */
import { hostname } from 'node:os';

export type MetricType = 'counter' | 'gauge' | 'histogram';
export type MetricTags = Readonly<Record<string, string>>;

export interface Counter {
  add(n?: number): void;
  readonly value: number;
}
export interface Gauge {
  set(v: number): void;
  add(n: number): void;
  readonly value: number;
}
export interface Histogram {
  record(v: number): void;
}

/** Upper bounds of histogram buckets: powers of two up to about a million, then +Inf. */
export const HISTOGRAM_BOUNDS: readonly number[] = [...Array.from({ length: 21 }, (_, i) => 2 ** i), Infinity];

/** One series: a metric name with a fixed tag set. */
export class Series {
  /** Counter total, gauge value, or histogram observation count. */
  value = 0;
  /** Histogram: sum of observations and per-bucket counts (bounded memory, never raw samples). */
  sum = 0;
  readonly buckets: number[] | undefined;
  constructor(
    readonly name: string,
    readonly type: MetricType,
    readonly tags: MetricTags,
  ) {
    this.buckets = type === 'histogram' ? new Array<number>(HISTOGRAM_BOUNDS.length).fill(0) : undefined;
  }
  add(n = 1): void {
    this.value += n;
  }
  set(v: number): void {
    this.value = v;
  }
  record(v: number): void {
    let i = 0;
    while (v > HISTOGRAM_BOUNDS[i]!) i++;
    this.buckets![i]!++;
    this.sum += v;
    this.value += 1;
  }
}

const NOOP: Counter & Gauge & Histogram = {
  add() {},
  set() {},
  record() {},
  value: 0,
};

function keyOf(name: string, tags: MetricTags): string {
  let k = name;
  for (const t of Object.keys(tags).sort()) k += `|${t}=${tags[t]}`;
  return k;
}

/** Holds every series of the process; snapshots feed `internal_metrics` and the API. */
export class MetricsRegistry {
  private readonly series = new Map<string, Series>();
  /** Tags added to every series (spec: `host`, `pid`). */
  readonly globalTags: MetricTags;
  constructor(globalTags: MetricTags = { host: hostname(), pid: String(process.pid) }) {
    this.globalTags = globalTags;
  }

  private get(name: string, type: MetricType, tags: MetricTags): Series {
    const all = { ...tags, ...this.globalTags };
    const k = keyOf(name, all);
    let s = this.series.get(k);
    if (!s) {
      s = new Series(name, type, all);
      this.series.set(k, s);
    }
    return s;
  }
  counter(name: string, tags: MetricTags = {}): Counter {
    return this.get(name, 'counter', tags);
  }
  gauge(name: string, tags: MetricTags = {}): Gauge {
    return this.get(name, 'gauge', tags);
  }
  histogram(name: string, tags: MetricTags = {}): Histogram {
    return this.get(name, 'histogram', tags);
  }
  /** Every series, in creation order. */
  all(): Series[] {
    return [...this.series.values()];
  }
  /** Sum of one metric over the series whose tags include `match`. */
  sum(name: string, match: MetricTags = {}): number {
    let total = 0;
    for (const s of this.series.values()) {
      if (s.name !== name) continue;
      let ok = true;
      for (const k in match) if (s.tags[k] !== match[k]) ok = false;
      if (ok) total += s.value;
    }
    return total;
  }
  /** Drops every series of a component (it was removed by a reload). */
  forget(componentId: string): void {
    for (const [k, s] of this.series) if (s.tags.component_id === componentId) this.series.delete(k);
  }
}

/** The metric handles of one component, bound once with its standard tags. */
export class ComponentTelemetry {
  readonly tags: MetricTags;
  constructor(
    readonly registry: MetricsRegistry,
    readonly id: string,
    readonly kind: 'source' | 'transform' | 'sink',
    readonly type: string,
  ) {
    this.tags = { component_id: id, component_kind: kind, component_type: type, component_name: id };
  }
  counter(name: string, extra?: MetricTags): Counter {
    return this.registry.counter(name, extra ? { ...this.tags, ...extra } : this.tags);
  }
  gauge(name: string, extra?: MetricTags): Gauge {
    return this.registry.gauge(name, extra ? { ...this.tags, ...extra } : this.tags);
  }
  histogram(name: string, extra?: MetricTags): Histogram {
    return this.registry.histogram(name, extra ? { ...this.tags, ...extra } : this.tags);
  }
  /** A counter that does nothing, for options that are off (bind once, no branches per event). */
  static readonly noop = NOOP;
}
