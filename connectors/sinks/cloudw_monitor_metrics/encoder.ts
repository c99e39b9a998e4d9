/**
 * Metric events to PutMetricData datums (as Vector's `aws_cloudwatch_metrics`), once per event when it enters
 * the sink: counters and sets as increments, gauges as totals, distributions as increments of
 * their samples; aggregated histograms and summaries have no datum form. The name is the metric's
 * name alone; the namespace (the metric's, else `default_namespace`) is the batch's partition.
 * Dimensions are the tags with a value, by key order, the first 30.
 */
import { EncodeError } from '../../../lib/codecs/encoding.js';
import type { Event, MetricEvent, MetricKind, MetricValue } from '../../../lib/event.js';
import { MetricNormalizer, type Normalized } from '../../shared/metrics/normalize.js';
import { seriesKey, singleTagValue } from '../../shared/metrics/series.js';
import type { Encoded } from '../../shared/request-sink.js';

/** Limits of one datum (the PutMetricData API reference). */
export const MAX_DIMENSIONS = 30;
const MAX_NAME = 255;
const MAX_DIMENSION_VALUE = 1024;
/** A dimension name the service takes: ASCII, not blank, not starting with `:`, 1-255 characters. */
const DIMENSION_NAME = /^(?!:)(?=[\x20-\x7e]*[^\s])[\x20-\x7e]{1,255}$/;
/** Values the service stores lie within ±2^360. */
export const MAX_MAGNITUDE = 2 ** 360;

/** One dimension as the SDK takes it. */
export interface Dimension {
  readonly Name: string;
  readonly Value: string;
}

/** One encoded metric. */
export interface MetricItem extends Encoded {
  readonly namespace: string;
  readonly name: string;
  /** Identity of the series within its namespace (name and tags). */
  readonly series: string;
  readonly dimensions: readonly Dimension[];
  /** Epoch ms; undefined lets the service use the time it receives the datum. */
  readonly timestamp: number | undefined;
  readonly kind: MetricKind;
  /** Undefined when there is nothing to send: the first absolute counter of a series, or an unsupported type. */
  readonly value: MetricValue | undefined;
  /** An aggregated histogram or summary, which has no datum form. */
  readonly unsupported: boolean;
}

const storable = (x: number) => Number.isFinite(x) && Math.abs(x) <= MAX_MAGNITUDE;

function checkValue(m: MetricEvent): void {
  const v = m.value;
  if (v.type === 'counter' || v.type === 'gauge') {
    if (!storable(v.value)) throw new EncodeError(`metric ${JSON.stringify(m.name)}: value ${v.value} is not one the service stores (finite, within ±2^360)`);
  } else if (v.type === 'distribution') {
    for (const s of v.samples)
      if (!storable(s.value) || !Number.isFinite(s.rate) || s.rate < 0) throw new EncodeError(`metric ${JSON.stringify(m.name)}: sample ${s.value} × ${s.rate} is not one the service stores`);
  }
}

/** Compiles the encoder once per sink; `truncated` hears of metrics with more than 30 dimensions. */
export function createMetricsEncoder(defaultNamespace: string, truncated: (name: string, dropped: string[]) => void = () => {}): (e: Event) => MetricItem {
  const normalizer = new MetricNormalizer();
  const normalize = (m: MetricEvent, series: string): Normalized | undefined => {
    switch (m.value.type) {
      case 'counter':
        return normalizer.toIncremental(series, m.kind, m.value);
      case 'gauge':
        return normalizer.toAbsolute(series, m.kind, m.value);
      default:
        // sets and distributions are sent as they come: a datum adds to what the service holds
        return m;
    }
  };
  const dimensionsOf = (m: MetricEvent): Dimension[] => {
    const tags = m.tags;
    if (!tags) return [];
    const out: Dimension[] = [];
    const keys = Object.keys(tags).sort();
    let dropped: string[] | undefined;
    for (const k of keys) {
      const value = singleTagValue(tags[k]!);
      // the service refuses blank or non-ASCII names, blank values, and longer ones than it stores
      if (!DIMENSION_NAME.test(k) || value === undefined || value.trim() === '' || value.length > MAX_DIMENSION_VALUE) continue;
      if (out.length === MAX_DIMENSIONS) (dropped ??= []).push(k);
      else out.push({ Name: k, Value: value });
    }
    if (dropped) truncated(m.name, dropped);
    return out;
  };
  return (e) => {
    if (e.type !== 'metric') throw new EncodeError('cloudw_monitor_metrics takes metric events only');
    if (e.name === '' || e.name.length > MAX_NAME) throw new EncodeError(`metric name ${JSON.stringify(e.name.slice(0, 300))} must have 1 to ${MAX_NAME} characters`);
    const namespace = e.namespace || defaultNamespace;
    if (namespace.length > MAX_NAME || namespace.startsWith('AWS/') || namespace.startsWith(':')) throw new EncodeError(`namespace ${JSON.stringify(namespace.slice(0, 300))} is not one the service takes`);
    const unsupported = e.value.type === 'aggregated_histogram' || e.value.type === 'aggregated_summary';
    if (!unsupported) checkValue(e);
    const series = seriesKey({ name: e.name, namespace, tags: e.tags });
    const n = unsupported ? undefined : normalize(e, series);
    return {
      event: e,
      size: 1,
      key: undefined,
      namespace,
      name: e.name,
      series,
      dimensions: dimensionsOf(e),
      timestamp: e.timestamp?.ms,
      kind: n?.kind ?? e.kind,
      value: n?.value,
      unsupported,
    };
  };
}
