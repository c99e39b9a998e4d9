/**
 * Statistics of a distribution's samples (as Vector's InfluxDB sink: min, max, median, avg, sum, count and
 * quantiles). Samples with rate 0 are ignored; quantiles take the value of the sample whose
 * cumulative count first reaches round(p × count).
 */
import type { Sample } from '../../../lib/event.js';

/** What a distribution reduces to. */
export interface DistributionStatistic {
  readonly min: number;
  readonly max: number;
  readonly median: number;
  readonly avg: number;
  readonly sum: number;
  readonly count: number;
  /** Values in the order of the requested quantiles. */
  readonly quantiles: number[];
}

/** Undefined when no sample has a positive rate. */
export function distributionStatistic(samples: readonly Sample[], quantiles: readonly number[]): DistributionStatistic | undefined {
  const bins: Sample[] = [];
  for (const s of samples) if (s.rate > 0) bins.push({ value: s.value, rate: s.rate });
  if (bins.length === 0) return undefined;
  if (bins.length === 1) {
    const { value, rate } = bins[0]!;
    return { min: value, max: value, median: value, avg: value, sum: value * rate, count: rate, quantiles: quantiles.map(() => value) };
  }
  bins.sort((a, b) => a.value - b.value);
  let sum = 0;
  for (const b of bins) sum += b.value * b.rate;
  // from here on `rate` is the cumulative count up to and including the bin
  for (let i = 1; i < bins.length; i++) bins[i]!.rate += bins[i - 1]!.rate;
  const count = bins[bins.length - 1]!.rate;
  const at = (p: number) => nth(bins, Math.round(p * count));
  return { min: bins[0]!.value, max: bins[bins.length - 1]!.value, median: at(0.5), avg: sum / count, sum, count, quantiles: quantiles.map(at) };
}

/** The i-th smallest value (1-based; 0 means the smallest) of a cumulative histogram. */
function nth(bins: readonly Sample[], i: number): number {
  let lo = 0;
  let hi = bins.length - 1;
  // first bin whose cumulative count reaches i
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (bins[mid]!.rate < i) lo = mid + 1;
    else hi = mid;
  }
  return bins[lo]!.value;
}
