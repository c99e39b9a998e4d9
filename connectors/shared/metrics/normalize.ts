/**
 * Metric normalisation across batches (as in Vector): "make incremental" turns absolute
 * values into deltas from the previous value of the same series, "make absolute" adds incremental
 * values to a running total. Only counters and gauges carry a number that can be normalised; other
 * values pass unchanged. State lives as long as the sink and grows with the number of series.
 */
import type { MetricKind, MetricValue } from '../../../lib/event.js';

/** A normalised metric value. */
export interface Normalized {
  readonly kind: MetricKind;
  readonly value: MetricValue;
}

type Scalar = Extract<MetricValue, { type: 'counter' | 'gauge' }>;
const isScalar = (v: MetricValue): v is Scalar => v.type === 'counter' || v.type === 'gauge';

/** The last value seen per series; one instance per sink. */
export class MetricNormalizer {
  private readonly last = new Map<string, Scalar>();

  /** Number of series with state. */
  get size(): number {
    return this.last.size;
  }

  /**
   * Incremental values pass. An absolute value becomes the delta from the series' previous value;
   * the first value of a series, and the first after the value type changed, only set the
   * reference (undefined: nothing to send). A counter that went down was reset: its delta is the
   * new value.
   */
  toIncremental(series: string, kind: MetricKind, value: MetricValue): Normalized | undefined {
    if (kind === 'incremental' || !isScalar(value)) return { kind, value };
    const prev = this.last.get(series);
    this.last.set(series, value);
    if (!prev || prev.type !== value.type) return undefined;
    const delta = value.type === 'counter' && value.value < prev.value ? value.value : value.value - prev.value;
    return { kind: 'incremental', value: { type: value.type, value: delta } };
  }

  /**
   * Absolute values pass and become the new total. An incremental value is added to the series'
   * running total (the first one starts it) and sent as absolute.
   */
  toAbsolute(series: string, kind: MetricKind, value: MetricValue): Normalized {
    if (!isScalar(value)) return { kind, value };
    if (kind === 'absolute') {
      this.last.set(series, value);
      return { kind, value };
    }
    const prev = this.last.get(series);
    const total: Scalar = { type: value.type, value: prev && prev.type === value.type ? prev.value + value.value : value.value };
    this.last.set(series, total);
    return { kind: 'absolute', value: total };
  }
}
