/**
 * Absolute state of metric series, as Vector keeps it for the Prometheus sinks: one entry per
 * series, value type and bucket or quantile bounds; an absolute value replaces the entry's, an
 * incremental one is added to it (counters and gauges sum, sets unite, histograms with the same
 * buckets add, distribution samples join) and the result is absolute. The exporter turns
 * distributions into histograms over its buckets, or keeps them as samples (merged by value) for
 * summaries; the remote-write sink keeps them as they are. An entry not updated for the expiry
 * period is dropped at the next sweep. Entries hold only what is rendered, never the event's
 * metadata, so finalizers are not kept alive.
 */
import type { MetricEvent, MetricKind, MetricValue, Sample, Tags } from '../../../lib/event.js';
import type { Timestamp } from '../../../lib/value.js';
import { mergeMetricValue } from '../metrics/merge.js';
import { seriesKey } from '../metrics/series.js';
import { samplesToBuckets } from './samples.js';

/** What the exposition renders of one series. */
export interface StoredMetric {
  readonly kind: MetricKind;
  readonly name: string;
  readonly namespace: string | undefined;
  readonly tags: Tags | undefined;
  value: MetricValue;
  timestamp: Timestamp | undefined;
  /** Scheduler time of the last update. */
  updatedAt: number;
}

export interface StoreOptions {
  /** What distributions are kept as: histograms over `buckets`, samples for summaries, or as they come. */
  readonly distributions: 'histogram' | 'summary' | 'keep';
  readonly buckets: readonly number[];
  readonly suppressTimestamp: boolean;
  /** 0: never expire. */
  readonly flushPeriodMs: number;
}

export class SeriesStore {
  private readonly series = new Map<string, StoredMetric>();

  constructor(private readonly opts: StoreOptions) {}

  get size(): number {
    return this.series.size;
  }

  values(): IterableIterator<StoredMetric> {
    return this.series.values();
  }

  /** Takes one metric at scheduler time `now`; returns its entry, which later updates change. */
  update(m: MetricEvent, now: number): StoredMetric {
    const value = this.converted(m.value);
    const key = refKey(m, value);
    const timestamp = this.opts.suppressTimestamp ? undefined : m.timestamp;
    const existing = this.series.get(key);
    if (existing === undefined) {
      const created: StoredMetric = { kind: 'absolute', name: m.name, namespace: m.namespace, tags: m.tags, value: own(value, m.value), timestamp, updatedAt: now };
      this.series.set(key, created);
      return created;
    }
    existing.value = m.kind === 'incremental' ? compact(mergeMetricValue('incremental', existing.value, value)) : own(value, m.value);
    existing.timestamp = timestamp;
    existing.updatedAt = now;
    return existing;
  }

  /** Drops the series not updated within the flush period before `now`. */
  sweep(now: number): number {
    if (this.opts.flushPeriodMs === 0) return 0;
    let dropped = 0;
    for (const [key, s] of this.series) {
      if (now - s.updatedAt >= this.opts.flushPeriodMs) {
        this.series.delete(key);
        dropped++;
      }
    }
    return dropped;
  }

  /** A distribution as the store keeps it; other values as they are. */
  private converted(value: MetricValue): MetricValue {
    if (value.type !== 'distribution' || this.opts.distributions === 'keep') return value;
    if (this.opts.distributions === 'summary') return { type: 'distribution', samples: value.samples, statistic: 'summary' };
    const h = samplesToBuckets(value.samples, this.opts.buckets);
    return { type: 'aggregated_histogram', buckets: h.buckets, count: h.count, sum: h.sum };
  }
}

/** The entry key: series, value type and bounds (a histogram with other buckets is another entry, as in Vector). */
function refKey(m: MetricEvent, value: MetricValue): string {
  const base = `${seriesKey(m)}\u0003${value.type}`;
  if (value.type === 'aggregated_histogram') return `${base}\u0003${value.buckets.map((b) => b.upper_limit).join(',')}`;
  if (value.type === 'aggregated_summary') return `${base}\u0003${value.quantiles.map((q) => q.quantile).join(',')}`;
  return base;
}

/** The value to keep: a copy where it is still the event's own (the event moves on and may be changed). */
function own(value: MetricValue, original: MetricValue): MetricValue {
  if (value !== original) return value;
  switch (value.type) {
    case 'counter':
    case 'gauge':
      return { type: value.type, value: value.value };
    default:
      return structuredClone(value);
  }
}

/** Distribution samples of equal value merged, so a long-lived summary series grows with distinct values only. */
function compact(value: MetricValue): MetricValue {
  if (value.type !== 'distribution' || value.samples.length < 64) return value;
  const rates = new Map<number, number>();
  for (const s of value.samples) rates.set(s.value, (rates.get(s.value) ?? 0) + s.rate);
  const samples: Sample[] = [];
  for (const [v, rate] of rates) samples.push({ value: v, rate });
  return { type: 'distribution', samples, statistic: value.statistic };
}
