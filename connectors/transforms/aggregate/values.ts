/**
 * Metric arithmetic of the `aggregate` transform, with Vector's rules (`MetricValue::add`,
 * `subtract` and `MetricData::update`): each operation changes its first argument in place and
 * says whether the two values were compatible; an incompatible pair leaves it unchanged.
 */
import type { MetricEvent, MetricValue } from '../../../lib/event.js';
import type { Timestamp } from '../../../lib/value.js';

const sameBounds = (a: readonly { upper_limit: number }[], b: readonly { upper_limit: number }[]) =>
  a.length === b.length && a.every((x, i) => x.upper_limit === b[i]!.upper_limit);

/** Adds `b` into `a`: counters and gauges sum, sets unite, samples of one statistic join, histograms with equal bounds add. */
export function addValue(a: MetricValue, b: MetricValue): boolean {
  switch (a.type) {
    case 'counter':
    case 'gauge':
      if (b.type !== a.type) return false;
      a.value += b.value;
      return true;
    case 'set':
      if (b.type !== 'set') return false;
      for (const x of b.values) if (!a.values.includes(x)) a.values.push(x);
      return true;
    case 'distribution':
      if (b.type !== 'distribution' || b.statistic !== a.statistic) return false;
      for (const s of b.samples) a.samples.push(s);
      return true;
    case 'aggregated_histogram':
      if (b.type !== 'aggregated_histogram' || !sameBounds(a.buckets, b.buckets)) return false;
      for (let i = 0; i < a.buckets.length; i++) a.buckets[i]!.count += b.buckets[i]!.count;
      a.count += b.count;
      a.sum += b.sum;
      return true;
    default:
      // quantiles of two summaries cannot be combined
      return false;
  }
}

/**
 * Subtracts `b` from `a`. A counter or histogram that went down was reset, so there is no delta
 * (false, as in Vector); set members and distribution samples seen in `b` are removed.
 */
export function subtractValue(a: MetricValue, b: MetricValue): boolean {
  switch (a.type) {
    case 'counter':
      if (b.type !== 'counter' || a.value < b.value) return false;
      a.value -= b.value;
      return true;
    case 'gauge':
      if (b.type !== 'gauge') return false;
      a.value -= b.value;
      return true;
    case 'set':
      if (b.type !== 'set') return false;
      a.values = a.values.filter((x) => !b.values.includes(x));
      return true;
    case 'distribution':
      if (b.type !== 'distribution' || b.statistic !== a.statistic) return false;
      a.samples = a.samples.filter((s) => !b.samples.some((p) => p.value === s.value && p.rate === s.rate));
      return true;
    case 'aggregated_histogram': {
      if (b.type !== 'aggregated_histogram' || !sameBounds(a.buckets, b.buckets) || a.count < b.count || a.sum < b.sum) return false;
      if (a.buckets.some((x, i) => x.count < b.buckets[i]!.count)) return false;
      for (let i = 0; i < a.buckets.length; i++) a.buckets[i]!.count -= b.buckets[i]!.count;
      a.count -= b.count;
      a.sum -= b.sum;
      return true;
    }
    default:
      return false;
  }
}

const later = (a: Timestamp, b: Timestamp) => a.ms > b.ms || (a.ms === b.ms && a.ns > b.ns);

/**
 * Widens `into`'s time to cover `other`: with timestamps and intervals on both, the result spans
 * from the earlier start to the later one's end; otherwise the later timestamp and no interval.
 */
export function widenTime(into: MetricEvent, other: Pick<MetricEvent, 'timestamp' | 'intervalMs'>): void {
  const t1 = into.timestamp;
  const t2 = other.timestamp;
  const i1 = into.intervalMs;
  const i2 = other.intervalMs;
  if (t1 && t2 && i1 && i2) {
    const delta = Math.abs(t1.ms - t2.ms);
    if (later(t1, t2)) {
      into.timestamp = t2;
      into.intervalMs = delta + i1;
    } else into.intervalMs = delta + i2;
  } else {
    into.timestamp = t1 && t2 ? (later(t2, t1) ? t2 : t1) : (t1 ?? t2);
    into.intervalMs = undefined;
  }
}

/** Adds `other`'s value into `into` and widens its time; nothing changes when the values are incompatible (false). */
export function updateMetric(into: MetricEvent, other: Pick<MetricEvent, 'value' | 'timestamp' | 'intervalMs'>): boolean {
  if (!addValue(into.value, other.value)) return false;
  widenTime(into, other);
  return true;
}
