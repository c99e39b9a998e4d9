/**
 * What a tapped event shows through the schema's `Log` and `Metric` objects (as in Vector's schema):
 * `message`, `timestamp`, `string(encoding)`, `json(field)`, and a metric's name, kind, value text
 * and single-valued tags.
 */
import { EncodedLogEvent, EventMetadata, LogEvent, MetricEvent, type Event, type MetricValue } from '../event.js';
import { encodeLogfmt } from '../codecs/logfmt.js';
import { valueToJSONText } from '../codecs/json.js';
import { type ObjectValue, Timestamp, type Value, cloneValue, fromJSON, toJSON, valueToString } from '../value.js';
import { yaml } from '../yaml.js';
import { getPath, parsePath } from '../path.js';

/** The schema's `EventEncodingType` values. */
export type EventEncoding = 'JSON' | 'YAML' | 'LOGFMT';

/** A copy for the tap: fields and tags copied, no acknowledgement claims (a tap never holds delivery back). */
export function tapCopy(e: Event): Event {
  const meta = new EventMetadata(e.meta.sourceId, e.meta.sourceType);
  // a threaded segment's output holds encoded records: shown decoded (docs/threads.md)
  if (e instanceof EncodedLogEvent) return new LogEvent(e.displayFields(), meta);
  if (e.type === 'log') return new LogEvent(cloneValue(e.fields) as ObjectValue, meta);
  return new MetricEvent(e.name, e.kind, structuredClone(e.value), meta, e.namespace, e.tags && structuredClone(e.tags), e.timestamp, e.intervalMs);
}

/** The `message` field as text, null when absent. */
export function logMessage(e: LogEvent): string | null {
  const m = e.fields.message;
  return m === undefined ? null : valueToString(m);
}

/** The `timestamp` field when it holds a timestamp. */
export function logTimestamp(e: LogEvent): string | null {
  const t = e.fields.timestamp;
  return t instanceof Timestamp ? t.toString() : null;
}

/** JSON text of one field by path (`json(field:)`), null when absent or the path is invalid. */
export function logField(e: LogEvent, field: string): string | null {
  let v: Value | undefined;
  try {
    v = getPath(e.fields, parsePath(field));
  } catch {
    return null;
  }
  return v === undefined ? null : valueToJSONText(v);
}

/** The event encoded as `string(encoding:)` asks. */
export function encodeEvent(e: Event, encoding: EventEncoding): string {
  const obj: ObjectValue = e.type === 'log' ? e.fields : (fromJSON(e.toJSON()) as ObjectValue);
  switch (encoding) {
    case 'JSON':
      return e.type === 'log' ? valueToJSONText(e.fields) : JSON.stringify(e.toJSON());
    case 'YAML':
      return yaml().stringify(toJSON(obj));
    case 'LOGFMT':
      return encodeLogfmt(obj);
  }
}

/** Vector's value type names (`aggregated histogram`). */
export function metricValueType(v: MetricValue): string {
  return v.type.replace('_', ' ');
}

const word = (w: string) => (/^[A-Za-z0-9_]*$/.test(w) ? w : JSON.stringify(w));

/** The value as display text: `3`, `a b`, `histogram 1@2`, `count=2 sum=3 1@0.5 1@inf`. */
export function metricValueText(v: MetricValue): string {
  switch (v.type) {
    case 'counter':
    case 'gauge':
      return String(v.value);
    case 'set':
      return v.values.map(word).join(' ');
    case 'distribution':
      return `${v.statistic} ` + v.samples.map((s) => `${s.rate}@${s.value}`).join(' ');
    case 'aggregated_histogram':
      return `count=${v.count} sum=${v.sum} ` + v.buckets.map((b) => `${b.count}@${Number.isFinite(b.upper_limit) ? b.upper_limit : 'inf'}`).join(' ');
    case 'aggregated_summary':
      return `count=${v.count} sum=${v.sum} ` + v.quantiles.map((q) => `${q.quantile}@${q.value}`).join(' ');
  }
}

/** Tags with exactly one string value, as `{key, value}`. */
export function metricTags(e: MetricEvent): { key: string; value: string }[] | null {
  if (!e.tags) return null;
  const out: { key: string; value: string }[] = [];
  for (const [key, val] of Object.entries(e.tags)) {
    if (typeof val === 'string') out.push({ key, value: val });
    else if (Array.isArray(val) && val.length === 1 && typeof val[0] === 'string') out.push({ key, value: val[0] });
  }
  return out;
}
