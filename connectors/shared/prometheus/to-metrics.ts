/**
 * Metric families (from a scrape or a remote-write request) to metric events, as Vector converts
 * them: counters stay counters, gauges and untyped samples become gauges, histograms become
 * aggregated histograms with per-bucket (not cumulative) counts and no `+Inf` bucket, summaries
 * become aggregated summaries. Every event is absolute, has no namespace, carries the labels as
 * tags, and the sample's timestamp or else `defaultTimestamp`.
 */
import { EventMetadata, MetricEvent, type MetricValue, type Tags } from '../../../lib/event.js';
import { Timestamp } from '../../../lib/value.js';
import type { Family } from './text-parse.js';

/** Where the events come from (their metadata). */
export interface Origin {
  readonly sourceId: string;
  readonly sourceType: string;
}

/** The events of `families`; `skipNaN` drops points holding a NaN (the remote-write source's choice). */
export function familiesToMetrics(families: readonly Family[], defaultTimestamp: Timestamp, origin: Origin, skipNaN = false): MetricEvent[] {
  const out: MetricEvent[] = [];
  const timestampOf = (ms: number | undefined) => (ms === undefined ? defaultTimestamp : new Timestamp(ms));
  const push = (name: string, value: MetricValue, labels: Record<string, string>, ms: number | undefined) =>
    out.push(new MetricEvent(name, 'absolute', value, new EventMetadata(origin.sourceId, origin.sourceType), undefined, tagsOf(labels), timestampOf(ms)));
  for (const f of families) {
    switch (f.type) {
      case 'counter':
        for (const p of f.points) if (!(skipNaN && Number.isNaN(p.value))) push(f.name, { type: 'counter', value: p.value }, p.labels, p.timestamp);
        break;
      case 'gauge':
      case 'untyped':
        for (const p of f.points) if (!(skipNaN && Number.isNaN(p.value))) push(f.name, { type: 'gauge', value: p.value }, p.labels, p.timestamp);
        break;
      case 'histogram':
        for (const p of f.points) {
          if (skipNaN && (Number.isNaN(p.sum) || p.buckets.some((b) => Number.isNaN(b.bound)))) continue;
          const sorted = p.buckets.slice().sort((a, b) => a.bound - b.bound || a.count - b.count);
          const buckets: { upper_limit: number; count: number }[] = [];
          let previous = 0;
          for (const b of sorted) {
            // cumulative counts to per-bucket ones; a count that went down reads as 0, as Vector saturates
            buckets.push({ upper_limit: b.bound, count: Math.max(0, b.count - previous) });
            previous = b.count;
          }
          if (buckets.length > 0 && buckets[buckets.length - 1]!.upper_limit === Number.POSITIVE_INFINITY) buckets.pop();
          push(f.name, { type: 'aggregated_histogram', buckets, count: p.count, sum: p.sum }, p.labels, p.timestamp);
        }
        break;
      case 'summary':
        for (const p of f.points) {
          if (skipNaN && (Number.isNaN(p.sum) || p.quantiles.some((q) => Number.isNaN(q.quantile) || Number.isNaN(q.value)))) continue;
          push(f.name, { type: 'aggregated_summary', quantiles: p.quantiles.map((q) => ({ quantile: q.quantile, value: q.value })), count: p.count, sum: p.sum }, p.labels, p.timestamp);
        }
        break;
    }
  }
  return out;
}

/** Labels sorted by name (Vector keeps tags in a sorted map); undefined when there are none. */
function tagsOf(labels: Record<string, string>): Tags | undefined {
  const keys = Object.keys(labels);
  if (keys.length === 0) return undefined;
  keys.sort();
  const tags: Tags = {};
  for (const k of keys) tags[k] = labels[k]!;
  return tags;
}
