/**
 * Absolute metrics as a remote-write `WriteRequest`, as Vector's remote-write sink collects them:
 * each sample of {@link forEachSample} becomes a sample of the series named by its labels (the
 * tags, `__name__` = full name plus suffix, and `le` or `quantile`; sorted by name), at the
 * metric's timestamp or else the request's time; one metadata entry per metric name gives the
 * family's type (`metric_family_name` the full name, `help` the metric's own name).
 */
import { singleTagValue } from '../metrics/series.js';
import type { RenderableMetric } from './exposition.js';
import { METRIC_TYPE, type WireLabel, type WireMetadata, type WireTimeSeries, type WireWriteRequest } from './remote-write-proto.js';
import { forEachSample, fullName, promTypeOf } from './samples.js';

export interface TimeSeriesOptions {
  readonly defaultNamespace: string | undefined;
  readonly buckets: readonly number[];
  readonly quantiles: readonly number[];
}

/** The request for `metrics` (absolute ones; others are skipped); `nowMs` stands in for missing timestamps. */
export function collectTimeSeries(metrics: Iterable<RenderableMetric>, opts: TimeSeriesOptions, nowMs: number): WireWriteRequest {
  const series = new Map<string, WireTimeSeries>();
  const metadata = new Map<string, WireMetadata>();
  for (const m of metrics) {
    if (m.kind !== 'absolute') continue;
    const name = fullName(m, opts.defaultNamespace);
    if (!metadata.has(m.name)) metadata.set(m.name, { type: METRIC_TYPE[promTypeOf(m.value)], metric_family_name: name, help: m.name, unit: '' });
    const timestamp = m.timestamp?.ms ?? nowMs;
    const base: WireLabel[] = [];
    if (m.tags) {
      for (const k in m.tags) {
        const v = singleTagValue(m.tags[k]!);
        if (v !== undefined && k !== '__name__') base.push({ name: k, value: v });
      }
    }
    forEachSample(m.value, opts.buckets, opts.quantiles, (suffix, value, extraName, extraValue) => {
      const labels = base.filter((l) => l.name !== extraName);
      labels.push({ name: '__name__', value: name + suffix });
      if (extraName !== undefined) labels.push({ name: extraName, value: extraValue! });
      labels.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const key = labels.map((l) => `${l.name}\u0000${l.value}`).join('\u0001');
      let ts = series.get(key);
      if (ts === undefined) {
        ts = { labels, samples: [] };
        series.set(key, ts);
      }
      ts.samples.push({ value, timestamp });
    });
  }
  return { timeseries: [...series.values()], metadata: [...metadata.values()] };
}
