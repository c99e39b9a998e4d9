/**
 * `native`: Vector's event protobuf (native-schema.ts). One frame is one `EventArray`; the
 * encoder writes one array per event, as Vector's does, and the decoder takes every event of an
 * array. Values map kind for kind: bytes <-> strings (UTF-8), int64 <-> integers, double <->
 * floats, timestamps with their nanoseconds. Integers beyond 2^53 lose precision (weir's
 * integers are doubles). Tags are read from `tags_v2` (the full sets); `tags_v1` only fills in
 * tags an older writer sent nowhere else.
 */
import { EventMetadata, type Event, LogEvent, MetricEvent, type MetricValue, type Tags } from '../event.js';
import { Float, type ObjectValue, Timestamp, type Value } from '../value.js';
import { type TimestampFormat, timestampValue } from './json.js';
import type { NativeReadOptions } from './native-json.js';
import { eventArrayType } from './native-schema.js';
import { singleTagValue, tagFromValues, tagValues } from './native-tags.js';

// Shapes of the decoded messages (protobufjs objects; int64 fields arrive as Long). A oneof is
// read through its virtual property (`kind`, `value`, `events`), which names the member that is set.
interface Long {
  toNumber(): number;
}
interface PTimestamp {
  seconds: number | Long;
  nanos: number;
}
interface PValue {
  kind?: string;
  raw_bytes?: Uint8Array;
  timestamp?: PTimestamp;
  integer?: number | string | Long;
  float?: number;
  boolean?: boolean;
  map?: { fields: Record<string, PValue> };
  array?: { items: PValue[] };
  null?: number;
}
interface PMetadata {
  value?: PValue | null;
}
interface PLog {
  fields: Record<string, PValue>;
  value?: PValue | null;
  metadata?: PValue | null;
  metadata_full?: PMetadata | null;
}
interface PSample {
  value: number;
  rate: number;
}
interface PBucket {
  upper_limit: number;
  count: number | Long;
}
interface PQuantile {
  quantile: number;
  value: number;
}
interface PMetric {
  name: string;
  namespace: string;
  timestamp?: PTimestamp | null;
  tags_v1: Record<string, string>;
  tags_v2: Record<string, { values: { value?: string | null }[] }>;
  kind: number;
  interval_ms: number;
  value?: string;
  counter?: { value: number };
  gauge?: { value: number };
  set?: { values: string[] };
  distribution1?: { values: number[]; sample_rates: number[]; statistic: number };
  distribution2?: { samples: PSample[]; statistic: number };
  aggregated_histogram1?: { buckets: number[]; counts: number[]; count: number; sum: number };
  aggregated_histogram2?: { buckets: PBucket[]; count: number; sum: number };
  aggregated_histogram3?: { buckets: PBucket[]; count: number | Long; sum: number };
  aggregated_summary1?: { quantiles: number[]; values: number[]; count: number; sum: number };
  aggregated_summary2?: { quantiles: PQuantile[]; count: number; sum: number };
  aggregated_summary3?: { quantiles: PQuantile[]; count: number | Long; sum: number };
  metadata?: PValue | null;
  metadata_full?: PMetadata | null;
}
interface PEventArray {
  events?: string;
  logs?: { logs: PLog[] };
  metrics?: { metrics: PMetric[] };
}

// ---------------------------------------------------------------------------------------------
// encoding

/** One event as an `EventArray` frame; log fields are the (projected) `fields`, timestamps per `format`. */
export function encodeNative(e: Event, fields: ObjectValue | undefined, format: TimestampFormat): Buffer {
  const msg = e.type === 'log' ? { logs: { logs: [logMessage(fields ?? e.fields, e.meta, format)] } } : { metrics: { metrics: [metricMessage(e)] } };
  const bytes = eventArrayType().encode(msg).finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function logMessage(fields: ObjectValue, meta: EventMetadata, format: TimestampFormat): PLog {
  const out: PLog = { fields: mapFields(fields, format) };
  // timestamp_format is about the event's fields; metadata keeps its timestamps
  if (meta.value && hasKeys(meta.value)) out.metadata_full = { value: valueMessage(meta.value, 'rfc3339') };
  return out;
}

function mapFields(o: ObjectValue, format: TimestampFormat): Record<string, PValue> {
  const out: Record<string, PValue> = {};
  for (const k in o) {
    const x = o[k];
    if (x !== undefined) out[k] = valueMessage(x, format);
  }
  return out;
}

function valueMessage(v: Value, format: TimestampFormat): PValue {
  if (v === null) return { null: 0 };
  switch (typeof v) {
    case 'string':
      return { raw_bytes: Buffer.from(v, 'utf8') };
    case 'number':
      return Number.isInteger(v) ? { integer: i64(v) } : { float: v };
    case 'boolean':
      return { boolean: v };
  }
  if (v instanceof Float) return { float: v.value };
  if (v instanceof Timestamp) {
    if (format === 'rfc3339') return { timestamp: timestampMessage(v) };
    return valueMessage(timestampValue(v, format), 'rfc3339');
  }
  if (v instanceof RegExp) return { raw_bytes: Buffer.from(v.source, 'utf8') };
  if (Array.isArray(v)) {
    const items: PValue[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) items[i] = valueMessage(v[i] as Value, format);
    return { array: { items } };
  }
  return { map: { fields: mapFields(v, format) } };
}

function timestampMessage(ts: Timestamp): PTimestamp {
  const seconds = Math.floor(ts.ms / 1000);
  return { seconds, nanos: (ts.ms - seconds * 1000) * 1_000_000 + ts.ns };
}

function metricMessage(m: MetricEvent): Record<string, unknown> {
  const tagsV1: Record<string, string> = {};
  const tagsV2: Record<string, { values: { value?: string }[] }> = {};
  if (m.tags) {
    for (const k in m.tags) {
      const t = m.tags[k]!;
      const single = singleTagValue(t);
      // the single value for readers that only know tags_v1
      if (single !== undefined) tagsV1[k] = single;
      tagsV2[k] = { values: tagValues(t).map((x) => (x === null ? {} : { value: x })) };
    }
  }
  // proto3 defaults (empty namespace, kind Incremental, interval 0) are left out, as other writers do
  const out: Record<string, unknown> = { name: m.name, tags_v1: tagsV1, tags_v2: tagsV2 };
  if (m.namespace !== undefined && m.namespace !== '') out.namespace = m.namespace;
  if (m.kind === 'absolute') out.kind = 1;
  if (m.intervalMs !== undefined && m.intervalMs > 0) out.interval_ms = u32(m.intervalMs);
  if (m.timestamp) out.timestamp = timestampMessage(m.timestamp);
  const v = m.value;
  switch (v.type) {
    case 'counter':
      out.counter = { value: v.value };
      break;
    case 'gauge':
      out.gauge = { value: v.value };
      break;
    case 'set':
      out.set = { values: v.values };
      break;
    case 'distribution':
      out.distribution2 = { samples: v.samples.map((x) => ({ value: x.value, rate: u32(x.rate) })), statistic: v.statistic === 'summary' ? 1 : 0 };
      break;
    case 'aggregated_histogram':
      out.aggregated_histogram3 = { buckets: v.buckets.map((b) => ({ upper_limit: b.upper_limit, count: u64(b.count) })), count: u64(v.count), sum: v.sum };
      break;
    case 'aggregated_summary':
      out.aggregated_summary3 = { quantiles: v.quantiles, count: u64(v.count), sum: v.sum };
      break;
  }
  if (m.meta.value && hasKeys(m.meta.value)) out.metadata_full = { value: valueMessage(m.meta.value, 'rfc3339') };
  return out;
}

const I64_MAX = '9223372036854775807';
const I64_MIN = '-9223372036854775808';
/** An int64 value, saturated: i64::MAX read back as a double is 2^63, which would wrap to i64::MIN. */
function i64(n: number): number | string {
  return n >= 2 ** 63 ? I64_MAX : n < -(2 ** 63) ? I64_MIN : n;
}

/** A u32 field, saturated (protobufjs would wrap a larger value around). */
function u32(n: number): number {
  return n <= 0 ? 0 : n >= 0xffffffff ? 0xffffffff : n;
}

const U64_MAX = '18446744073709551615';
/**
 * A u64 field, saturated: a count near 2^64 read back as a double rounds up to 2^64 itself,
 * which protobufjs would wrap around to 0.
 */
function u64(n: number): number | string {
  return n <= 0 ? 0 : n >= 2 ** 64 ? U64_MAX : n;
}

// ---------------------------------------------------------------------------------------------
// decoding

/** Appends the events of one `EventArray` frame `buf[start, end)` to `out`; an empty frame has none. Throws on bad protobuf or shape. */
export function readNative(buf: Buffer, start: number, end: number, opts: NativeReadOptions, out: Event[]): void {
  if (end === start) return;
  const msg = eventArrayType().decode(buf.subarray(start, end)) as unknown as PEventArray;
  switch (msg.events) {
    case 'logs':
      for (const l of msg.logs!.logs) out.push(logOf(l, opts));
      return;
    case 'metrics':
      for (const m of msg.metrics!.metrics) out.push(metricOf(m, opts));
      return;
    case 'traces':
      throw new Error('trace events are not supported');
    default:
      throw new Error('EventArray holds no events');
  }
}

function logOf(l: PLog, opts: NativeReadOptions): LogEvent {
  let fields: ObjectValue;
  if (l.value) {
    // the root as one value (Vector writes it so when the root is not an object)
    const root = valueOf(l.value);
    fields = isObjectValue(root) ? root : { [opts.messageKey]: root };
  } else fields = fieldsOf(l.fields);
  const meta = new EventMetadata(opts.sourceId, opts.sourceType);
  meta.value = metadataValue(l.metadata_full, l.metadata);
  return new LogEvent(fields, meta);
}

/** The `%` metadata of an event, when the writer sent a non-empty one. */
function metadataValue(full: PMetadata | null | undefined, old: PValue | null | undefined): ObjectValue | undefined {
  const v = full?.value ?? old;
  if (!v) return undefined;
  const o = valueOf(v);
  return isObjectValue(o) && hasKeys(o) ? o : undefined;
}

function fieldsOf(m: Record<string, PValue>): ObjectValue {
  const out: ObjectValue = {};
  for (const k in m) {
    const v = valueOf(m[k]!);
    // an own property even for `__proto__` (protobufjs fills maps by assignment)
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out;
}

function valueOf(v: PValue): Value {
  switch (v.kind) {
    case 'raw_bytes':
      return Buffer.from(v.raw_bytes!.buffer, v.raw_bytes!.byteOffset, v.raw_bytes!.byteLength).toString('utf8');
    case 'timestamp':
      return timestampOf(v.timestamp!);
    case 'integer':
      return num(v.integer as number | Long);
    case 'float':
      return new Float(v.float!);
    case 'boolean':
      return v.boolean!;
    case 'map':
      return fieldsOf(v.map!.fields);
    case 'array': {
      const items = v.array!.items;
      const out: Value[] = new Array(items.length);
      for (let i = 0; i < items.length; i++) out[i] = valueOf(items[i]!);
      return out;
    }
    case 'null':
      return null;
    default:
      throw new Error('a value has no kind');
  }
}

function timestampOf(t: PTimestamp): Timestamp {
  const nanos = t.nanos;
  if (nanos < 0 || nanos >= 1e9) throw new Error(`timestamp nanos out of range: ${nanos}`);
  return new Timestamp(num(t.seconds) * 1000 + Math.floor(nanos / 1e6), nanos % 1e6);
}

function metricOf(m: PMetric, opts: NativeReadOptions): MetricEvent {
  if (m.kind !== 0 && m.kind !== 1) throw new Error(`unknown metric kind ${m.kind}`);
  const meta = new EventMetadata(opts.sourceId, opts.sourceType);
  meta.value = metadataValue(m.metadata_full, m.metadata);
  return new MetricEvent(
    m.name,
    m.kind === 1 ? 'absolute' : 'incremental',
    metricValueOf(m),
    meta,
    m.namespace === '' ? undefined : m.namespace,
    tagsOf(m),
    m.timestamp ? timestampOf(m.timestamp) : undefined,
    m.interval_ms === 0 ? undefined : m.interval_ms,
  );
}

function tagsOf(m: PMetric): Tags | undefined {
  let tags: Tags | undefined;
  for (const k in m.tags_v2) {
    tags ??= {};
    tags[k] = tagFromValues(m.tags_v2[k]!.values.map((x) => x.value ?? null));
  }
  for (const k in m.tags_v1) {
    tags ??= {};
    // tags_v1 repeats the single value of each tags_v2 set; alone it is an older writer's tag
    if (tags[k] === undefined) tags[k] = m.tags_v1[k]!;
  }
  return tags;
}

function metricValueOf(m: PMetric): MetricValue {
  switch (m.value) {
    case 'counter':
      return { type: 'counter', value: m.counter!.value };
    case 'gauge':
      return { type: 'gauge', value: m.gauge!.value };
    case 'set':
      return { type: 'set', values: m.set!.values.slice() };
    case 'distribution1': {
      const d = m.distribution1!;
      const n = Math.min(d.values.length, d.sample_rates.length);
      const samples = new Array<{ value: number; rate: number }>(n);
      for (let i = 0; i < n; i++) samples[i] = { value: d.values[i]!, rate: d.sample_rates[i]! };
      return { type: 'distribution', samples, statistic: statisticOf(d.statistic) };
    }
    case 'distribution2': {
      const d = m.distribution2!;
      return { type: 'distribution', samples: d.samples.map((s) => ({ value: s.value, rate: s.rate })), statistic: statisticOf(d.statistic) };
    }
    case 'aggregated_histogram1': {
      const h = m.aggregated_histogram1!;
      const n = Math.min(h.buckets.length, h.counts.length);
      const buckets = new Array<{ upper_limit: number; count: number }>(n);
      for (let i = 0; i < n; i++) buckets[i] = { upper_limit: h.buckets[i]!, count: h.counts[i]! };
      return { type: 'aggregated_histogram', buckets, count: h.count, sum: h.sum };
    }
    case 'aggregated_histogram2':
    case 'aggregated_histogram3': {
      const h = (m.aggregated_histogram2 ?? m.aggregated_histogram3)!;
      return { type: 'aggregated_histogram', buckets: h.buckets.map((b) => ({ upper_limit: b.upper_limit, count: num(b.count) })), count: num(h.count), sum: h.sum };
    }
    case 'aggregated_summary1': {
      const s = m.aggregated_summary1!;
      const n = Math.min(s.quantiles.length, s.values.length);
      const quantiles = new Array<{ quantile: number; value: number }>(n);
      for (let i = 0; i < n; i++) quantiles[i] = { quantile: s.quantiles[i]!, value: s.values[i]! };
      return { type: 'aggregated_summary', quantiles, count: s.count, sum: s.sum };
    }
    case 'aggregated_summary2':
    case 'aggregated_summary3': {
      const s = (m.aggregated_summary2 ?? m.aggregated_summary3)!;
      return { type: 'aggregated_summary', quantiles: s.quantiles.map((q) => ({ quantile: q.quantile, value: q.value })), count: num(s.count), sum: s.sum };
    }
    case 'sketch':
      throw new Error('sketch metrics are not supported');
    default:
      throw new Error('metric has no value');
  }
}

function statisticOf(s: number): 'histogram' | 'summary' {
  if (s === 0) return 'histogram';
  if (s === 1) return 'summary';
  throw new Error(`unknown distribution statistic ${s}`);
}

/** An int64/uint64 as a number (exact up to 2^53). */
function num(x: number | Long): number {
  return typeof x === 'number' ? x : x.toNumber();
}

function isObjectValue(v: Value): v is ObjectValue {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Float) && !(v instanceof Timestamp) && !(v instanceof RegExp);
}

function hasKeys(o: ObjectValue): boolean {
  for (const _ in o) return true;
  return false;
}
