/**
 * The samples one absolute metric stands for in Prometheus's model, as Vector renders them for both
 * the exposition (text) and remote write (time series): counters and gauges one sample, a set the
 * count of its values (a gauge), a histogram cumulative `_bucket` samples with an `le` label ending
 * in `+Inf`, then `_sum` and `_count`, a summary a sample per `quantile` label, then `_sum` and
 * `_count`. A distribution becomes a histogram over the configured buckets, or a summary over the
 * configured quantiles (with `_min`, `_max` and `_avg`, as Vector adds them) by its statistic.
 */
import type { MetricEvent, MetricValue, Sample } from '../../../lib/event.js';
import { distributionStatistic } from '../metrics/statistics.js';

/** Prometheus's metric types, as `# TYPE` and remote-write metadata name them. */
export type PromType = 'counter' | 'gauge' | 'histogram' | 'summary';

/** Vector's defaults for `buckets` and `quantiles`. */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
export const DEFAULT_QUANTILES: readonly number[] = [0.5, 0.75, 0.9, 0.95, 0.99];

/** The type a metric value is declared as. */
export function promTypeOf(value: MetricValue): PromType {
  switch (value.type) {
    case 'counter':
      return 'counter';
    case 'gauge':
    case 'set':
      return 'gauge';
    case 'distribution':
      return value.statistic === 'histogram' ? 'histogram' : 'summary';
    case 'aggregated_histogram':
      return 'histogram';
    case 'aggregated_summary':
      return 'summary';
  }
}

/** `namespace_name`, the namespace being the metric's or else the default (Vector's `encode_namespace`). */
export function fullName(m: Pick<MetricEvent, 'name' | 'namespace'>, defaultNamespace: string | undefined): string {
  const ns = m.namespace ?? defaultNamespace;
  return ns === undefined || ns === '' ? m.name : `${ns}_${m.name}`;
}

/** Receives each sample: the name's suffix, the value and the extra label (`le` or `quantile`), if any. */
export type SampleCallback = (suffix: string, value: number, extraName: string | undefined, extraValue: string | undefined) => void;

/** A bound or quantile as a label value (`0.25`, `1`, `+Inf`). */
export const formatBound = (n: number): string => (n === Number.POSITIVE_INFINITY ? '+Inf' : n === Number.NEGATIVE_INFINITY ? '-Inf' : String(n));

/** Calls `emit` for every sample of an absolute `value`. */
export function forEachSample(value: MetricValue, buckets: readonly number[], quantiles: readonly number[], emit: SampleCallback): void {
  switch (value.type) {
    case 'counter':
    case 'gauge':
      emit('', value.value, undefined, undefined);
      return;
    case 'set':
      emit('', value.values.length, undefined, undefined);
      return;
    case 'distribution':
      if (value.statistic === 'histogram') {
        const h = samplesToBuckets(value.samples, buckets);
        histogramSamples(h.buckets, h.count, h.sum, emit);
      } else {
        const stat = distributionStatistic(value.samples, quantiles);
        if (stat === undefined) {
          emit('_sum', 0, undefined, undefined);
          emit('_count', 0, undefined, undefined);
          return;
        }
        for (let i = 0; i < quantiles.length; i++) emit('', stat.quantiles[i]!, 'quantile', formatBound(quantiles[i]!));
        emit('_sum', stat.sum, undefined, undefined);
        emit('_count', stat.count, undefined, undefined);
        emit('_min', stat.min, undefined, undefined);
        emit('_max', stat.max, undefined, undefined);
        emit('_avg', stat.avg, undefined, undefined);
      }
      return;
    case 'aggregated_histogram':
      histogramSamples(value.buckets, value.count, value.sum, emit);
      return;
    case 'aggregated_summary':
      for (const q of value.quantiles) emit('', q.value, 'quantile', formatBound(q.quantile));
      emit('_sum', value.sum, undefined, undefined);
      emit('_count', value.count, undefined, undefined);
  }
}

/** Per-bucket counts made cumulative; an infinite bound in the data is left to the `+Inf` sample. */
function histogramSamples(buckets: readonly { upper_limit: number; count: number }[], count: number, sum: number, emit: SampleCallback): void {
  let cumulative = 0;
  for (const b of buckets) {
    if (!Number.isFinite(b.upper_limit)) continue;
    cumulative += b.count;
    emit('_bucket', cumulative, 'le', formatBound(b.upper_limit));
  }
  emit('_bucket', count, 'le', '+Inf');
  emit('_sum', sum, undefined, undefined);
  emit('_count', count, undefined, undefined);
}

/**
 * Samples counted into buckets (per-bucket counts; a value lands in the first bucket whose bound
 * it does not exceed; values above the last bound count only in `count`), as Vector's
 * `samples_to_buckets`.
 */
export function samplesToBuckets(samples: readonly Sample[], bounds: readonly number[]): { buckets: { upper_limit: number; count: number }[]; count: number; sum: number } {
  const counts = new Array<number>(bounds.length).fill(0);
  let count = 0;
  let sum = 0;
  for (const s of samples) {
    for (let i = 0; i < bounds.length; i++) {
      if (s.value <= bounds[i]!) {
        counts[i]! += s.rate;
        break;
      }
    }
    count += s.rate;
    sum += s.value * s.rate;
  }
  return { buckets: bounds.map((upper_limit, i) => ({ upper_limit, count: counts[i]! })), count, sum };
}
