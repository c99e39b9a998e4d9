/**
 * Metric events to line protocol (as Vector's `influxdb_metrics`): each event is normalised (counters
 * to deltas, gauges to totals) and rendered once when it enters the sink. One line:
 * `<namespace.name>,<tags incl. metric_type> <fields> <timestamp>`.
 */
import { EncodeError } from '../../../lib/codecs/encoding.js';
import type { Event, MetricEvent, MetricKind, MetricValue, Tags } from '../../../lib/event.js';
import { Timestamp } from '../../../lib/value.js';
import { MetricNormalizer, type Normalized } from '../../shared/metrics/normalize.js';
import { seriesKey, singleTagValue } from '../../shared/metrics/series.js';
import { distributionStatistic } from '../../shared/metrics/statistics.js';
import type { Encoded } from '../../shared/request-sink.js';
import { type TsdbMetricsConfig, generationOf } from './config.js';
import { type Precision, escapeKey, escapeMeasurement, formatFloat, formatTime, formatUnsigned } from './line-protocol.js';

/** One encoded metric; `line` is empty when normalisation left nothing to write. */
export interface EncodedMetric extends Encoded {
  /** `measurement,tags`: equal heads are one series on the server. */
  readonly head: string;
  readonly kind: MetricKind;
  readonly value: MetricValue | undefined;
  readonly time: Timestamp;
  readonly line: string;
}

export interface TsdbEncoder {
  readonly precision: Precision;
  /** Normalises and renders one event; throws {@link EncodeError} for one it cannot write. */
  encode(e: Event): EncodedMetric;
  /** The line of a head, a (merged) value and a time; undefined when no field is left. */
  line(head: string, value: MetricValue, time: Timestamp): string | undefined;
}

const METRIC_TYPE: Record<MetricValue['type'], string> = {
  counter: 'counter',
  gauge: 'gauge',
  set: 'set',
  distribution: 'distribution',
  aggregated_histogram: 'histogram',
  aggregated_summary: 'summary',
};

const PRECISION_OF: Record<string, Precision> = { rfc3339: 'ns', unix_ns: 'ns', unix_us: 'us', unix_ms: 'ms', unix: 's' };

/** A name filter from only_fields / except_fields entries of one kind; undefined keeps everything. */
function nameFilter(only: readonly string[] | undefined, except: readonly string[] | undefined): ((name: string) => boolean) | undefined {
  const keep = only && only.length > 0 ? new Set(only) : undefined;
  const drop = except && except.length > 0 ? new Set(except) : undefined;
  if (!keep && !drop) return undefined;
  return (name) => (!keep || keep.has(name)) && !drop?.has(name);
}

const TAG_PREFIX = 'tags.';
const split = (names: readonly string[] | undefined, tags: boolean) =>
  names?.filter((n) => n.startsWith(TAG_PREFIX) === tags).map((n) => (tags ? n.slice(TAG_PREFIX.length) : n));

/** Compiles the encoder once per sink: tag set, filters, quantiles and unsigned suffix are fixed here. */
export function createTsdbEncoder(config: TsdbMetricsConfig, now: () => number): TsdbEncoder {
  const uint = generationOf(config) === 1 ? 'i' : 'u';
  const precision = PRECISION_OF[config.encoding.timestamp_format ?? 'rfc3339'] ?? 'ns';
  const { only_fields, except_fields } = config.encoding;
  const keepField = nameFilter(split(only_fields, false), split(except_fields, false));
  const keepTag = nameFilter(split(only_fields, true), split(except_fields, true));
  const summaryQuantiles = config.quantiles;
  const summaryNames = summaryQuantiles.map((q) => `quantile_${q.toFixed(2)}`);
  const defaultNamespace = config.default_namespace;
  const normalizer = new MetricNormalizer();

  // config tags win over metric tags with the same key; metric_type is added last and wins over both
  const configTags: [string, string][] = [];
  for (const [k, val] of Object.entries(config.tags)) {
    if (k === '' || val === '' || k === 'metric_type' || (keepTag && !keepTag(k))) continue;
    const ek = escapeKey(k);
    const ev = escapeKey(val);
    if (ek !== undefined && ev !== undefined) configTags.push([k, `${ek}=${ev}`]);
  }
  const configKeys = new Set(Object.keys(config.tags));
  const metricTypeTag = (t: string): [string, string] | undefined => (!keepTag || keepTag('metric_type') ? ['metric_type', `metric_type=${t}`] : undefined);
  const typeTags = Object.fromEntries(Object.entries(METRIC_TYPE).map(([k, t]) => [k, metricTypeTag(t)])) as Record<MetricValue['type'], [string, string] | undefined>;

  const tagsText = (tags: Tags | undefined, type: MetricValue['type']): string => {
    const out: [string, string][] = configTags.slice();
    if (tags) {
      for (const k in tags) {
        if (k === '' || configKeys.has(k) || k === 'metric_type' || (keepTag && !keepTag(k))) continue;
        const val = singleTagValue(tags[k]!);
        if (!val) continue;
        // a tag line protocol cannot carry is left out, not the whole metric
        const ek = escapeKey(k);
        const ev = escapeKey(val);
        if (ek !== undefined && ev !== undefined) out.push([k, `${ek}=${ev}`]);
      }
    }
    const typeTag = typeTags[type];
    if (typeTag) out.push(typeTag);
    if (out.length === 0) return '';
    if (out.length > 1) out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    let s = '';
    for (let i = 0; i < out.length; i++) s += ',' + out[i]![1];
    return s;
  };

  let fieldsOut = '';
  const field = (name: string, text: string) => {
    if (keepField && !keepField(name)) return;
    fieldsOut += (fieldsOut === '' ? '' : ',') + name + '=' + text;
  };
  // non-finite numbers are not storable: such a field is left out
  const float = (name: string, x: number) => Number.isFinite(x) && field(name, formatFloat(x));

  const fieldsText = (value: MetricValue): string => {
    fieldsOut = '';
    switch (value.type) {
      case 'counter':
      case 'gauge':
        float('value', value.value);
        break;
      case 'set':
        float('value', new Set(value.values).size);
        break;
      case 'aggregated_histogram':
        for (const b of value.buckets) field(`bucket_${formatFloat(b.upper_limit)}`, formatUnsigned(b.count, uint));
        field('count', formatUnsigned(value.count, uint));
        float('sum', value.sum);
        break;
      case 'aggregated_summary':
        for (const q of value.quantiles) float(`quantile_${formatFloat(q.quantile)}`, q.value);
        field('count', formatUnsigned(value.count, uint));
        float('sum', value.sum);
        break;
      case 'distribution': {
        const quantiles = value.statistic === 'histogram' ? [0.95] : summaryQuantiles;
        const stat = distributionStatistic(value.samples, quantiles);
        if (!stat) break;
        float('min', stat.min);
        float('max', stat.max);
        float('median', stat.median);
        float('avg', stat.avg);
        float('sum', stat.sum);
        float('count', stat.count);
        const names = value.statistic === 'histogram' ? ['quantile_0.95'] : summaryNames;
        for (let i = 0; i < quantiles.length; i++) float(names[i]!, stat.quantiles[i]!);
        break;
      }
    }
    return fieldsOut;
  };

  // sources share one Timestamp across a batch: its text is made once
  let lastTime: Timestamp | undefined;
  let lastTimeText = '';
  const timeText = (t: Timestamp): string => {
    if (t !== lastTime) {
      lastTime = t;
      lastTimeText = formatTime(t.ms, t.ns, precision);
    }
    return lastTimeText;
  };

  const line = (head: string, value: MetricValue, time: Timestamp): string | undefined => {
    const fields = fieldsText(value);
    return fields === '' ? undefined : `${head} ${fields} ${timeText(time)}`;
  };

  const normalize = (m: MetricEvent): Normalized | undefined => {
    // as in Vector, counters are sent as deltas, gauges as totals, the rest as they come
    if (m.value.type === 'counter') return m.kind === 'incremental' ? m : normalizer.toIncremental(seriesKey(m), m.kind, m.value);
    if (m.value.type === 'gauge') return normalizer.toAbsolute(seriesKey(m), m.kind, m.value);
    return m;
  };

  return {
    precision,
    line,
    encode(e) {
      if (e.type !== 'metric') throw new EncodeError('tsdb_metrics takes metric events only');
      const namespace = e.namespace || defaultNamespace;
      const measurement = escapeMeasurement(namespace ? `${namespace}.${e.name}` : e.name);
      if (measurement === undefined || measurement === '') throw new EncodeError(`metric name ${JSON.stringify(e.name)} cannot be written in line protocol`);
      const head = measurement + tagsText(e.tags, e.value.type);
      const time = e.timestamp ?? new Timestamp(Math.floor(now()), 0);
      const n = normalize(e);
      // the first absolute value of a series only sets the reference: nothing to write
      if (!n) return { event: e, size: 0, key: undefined, head, kind: e.kind, value: undefined, time, line: '' };
      const text = line(head, n.value, time);
      if (text === undefined) throw new EncodeError(`metric ${JSON.stringify(e.name)} has no field to write`);
      return { event: e, size: text.length, key: undefined, head, kind: n.kind, value: n.value, time, line: text };
    },
  };
}
