/**
 * A metric as the log event the service ingests (Vector's metric-to-log step):
 * `name`, `namespace`, `tags`, `interval_ms`, `kind` and one value member (`counter`, `gauge`,
 * `set`, `distribution`, `aggregated_histogram`, `aggregated_summary`) as Vector serialises them,
 * the timestamp (else now) in the timestamp field, and the tag named `host_tag` moved to the host
 * field.
 */
import type { MetricEvent, MetricValue, TagValue, Tags } from '../../../lib/event.js';
import { type ObjectValue, Timestamp, type Value } from '../../../lib/value.js';
import { singleTagValue } from '../../shared/metrics/series.js';

/** How a metric becomes a log: the options and the global `log_schema` fields. */
export interface ToLogOptions {
  readonly hostTag: string;
  readonly tagValues: 'single' | 'full';
  /** Global `log_schema`: where the host and the timestamp go. */
  readonly hostField: string;
  readonly timestampField: string;
}

/** The value member: its name and object, keys as Vector writes them. */
function valueMember(v: MetricValue): ObjectValue {
  switch (v.type) {
    case 'counter':
    case 'gauge':
      return { value: v.value };
    case 'set':
      // Vector keeps set values in an ordered set: sorted, each once
      return { values: [...new Set(v.values)].sort() };
    case 'distribution':
      return { samples: v.samples.map((s) => ({ value: s.value, rate: s.rate })), statistic: v.statistic };
    case 'aggregated_histogram':
      return { buckets: v.buckets.map((b) => ({ upper_limit: b.upper_limit, count: b.count })), count: v.count, sum: v.sum };
    case 'aggregated_summary':
      return { quantiles: v.quantiles.map((q) => ({ quantile: q.quantile, value: q.value })), count: v.count, sum: v.sum };
  }
}

/** `full`: every value of a tag, bare ones as null. */
const allValues = (t: TagValue): Value => (Array.isArray(t) ? t.slice() : [t]);

/** The tags as the log holds them (without the host tag); undefined when none is left. */
function tagsMember(tags: Tags, hostTag: string, full: boolean): ObjectValue | undefined {
  let out: ObjectValue | undefined;
  for (const k in tags) {
    if (k === hostTag) continue;
    const t = tags[k]!;
    let v: Value;
    if (full) v = allValues(t);
    else {
      // single: the last assigned value; a tag with no value is left out
      const s = singleTagValue(t);
      if (s === undefined) continue;
      v = s;
    }
    (out ??= {})[k] = v;
  }
  return out;
}

/** Converts one metric; `nowMs` stamps a metric without a timestamp. */
export function metricToLog(m: MetricEvent, o: ToLogOptions, nowMs: number): ObjectValue {
  const log: ObjectValue = { name: m.name };
  if (m.namespace !== undefined) log.namespace = m.namespace;
  let host: string | undefined;
  if (m.tags) {
    const tags = tagsMember(m.tags, o.hostTag, o.tagValues === 'full');
    if (tags) log.tags = tags;
    const h = m.tags[o.hostTag];
    if (h !== undefined) host = singleTagValue(h);
  }
  if (m.intervalMs !== undefined) log.interval_ms = m.intervalMs;
  log.kind = m.kind;
  log[m.value.type] = valueMember(m.value);
  log[o.timestampField] = m.timestamp ?? new Timestamp(Math.floor(nowMs));
  if (host !== undefined) log[o.hostField] = host;
  return log;
}
