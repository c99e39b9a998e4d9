/**
 * Vector's `vector.PushEventsRequest` bytes to weir events, read straight into weir values (no
 * intermediate message objects). Types map one to one (see encode.ts); `raw_bytes` become
 * strings (weir's bytes kind is text: invalid UTF-8 is replaced). Older message forms are read
 * as Vector reads them: a log's `fields` map or its `value`, `metadata_full` before the deprecated
 * `metadata`, `tags_v2` then `tags_v1`, every version of distributions, histograms and summaries.
 * What weir cannot hold is left out and reported by reason: traces, sketches, empty wrappers.
 */
import { type Bucket, type Event, EventMetadata, LogEvent, type MetricKind, MetricEvent, type MetricValue, type Quantile, type Sample, type Tags } from '../../../lib/event.js';
import { tagFromValues } from '../../../lib/codecs/native-tags.js';
import { type ObjectValue, type Value, Float, Timestamp, isObject } from '../../../lib/value.js';
import { ProtoError, ProtoReader } from './reader.js';

export { ProtoError } from './reader.js';

/** How the receiving source stamps the events. */
export interface DecodeShape {
  readonly sourceId: string;
  readonly sourceType: string;
  /** Field a log whose root is not an object is put under. */
  readonly messageKey: string;
  /** Set on logs that lack them (Vector's legacy namespace): the source type and the receive time. */
  readonly sourceTypeKey: string | undefined;
  readonly timestampKey: string | undefined;
}

/** The events of one request, and what was left out by reason. */
export interface Decoded {
  readonly events: Event[];
  readonly dropped: Map<string, number>;
}

const NOT_SET = Symbol('not set');

/** A `Value` message's content up to `end`; {@link NOT_SET} when it holds no kind. */
function readValue(r: ProtoReader, end: number): Value | typeof NOT_SET {
  let v: Value | typeof NOT_SET = NOT_SET;
  while (r.pos < end) {
    const tag = r.varint();
    const field = tag >>> 3;
    const wt = tag & 7;
    switch (field) {
      case 1:
        if (wt !== 2) break;
        v = r.string();
        continue;
      case 2:
        if (wt !== 2) break;
        v = readTimestamp(r, r.delimited());
        continue;
      case 4:
        if (wt !== 0) break;
        v = r.int64();
        continue;
      case 5:
        if (wt !== 1) break;
        v = new Float(r.double());
        continue;
      case 6:
        if (wt !== 0) break;
        v = r.varint() !== 0;
        continue;
      case 7:
        if (wt !== 2) break;
        v = readMap(r, r.delimited());
        continue;
      case 8:
        if (wt !== 2) break;
        v = readArray(r, r.delimited());
        continue;
      case 9:
        if (wt !== 0) break;
        r.varint();
        v = null;
        continue;
    }
    r.skip(wt);
  }
  r.pos = end;
  return v;
}

/** The value in a length-delimited `Value` field. */
function readValueField(r: ProtoReader): Value | typeof NOT_SET {
  return readValue(r, r.delimited());
}

/** `map<string, Value>` entries up to `end` into `out` (a `ValueMap` or a log's `fields`). */
function readMapEntry(r: ProtoReader, end: number, out: ObjectValue): void {
  let key = '';
  let value: Value | typeof NOT_SET = NOT_SET;
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === 0x0a) key = r.string();
    else if (tag === 0x12) value = readValueField(r);
    else r.skip(tag & 7);
  }
  r.pos = end;
  // an entry without a value kind is left out, as Vector leaves it out
  if (value !== NOT_SET) out[key] = value;
}

function readMap(r: ProtoReader, end: number): ObjectValue {
  const out: ObjectValue = {};
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === 0x0a) readMapEntry(r, r.delimited(), out);
    else r.skip(tag & 7);
  }
  r.pos = end;
  return out;
}

function readArray(r: ProtoReader, end: number): Value[] {
  const out: Value[] = [];
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === 0x0a) {
      const v = readValueField(r);
      // Vector refuses an array with a kindless item; null keeps the positions
      out.push(v === NOT_SET ? null : v);
    } else r.skip(tag & 7);
  }
  r.pos = end;
  return out;
}

function readTimestamp(r: ProtoReader, end: number): Timestamp {
  let seconds = 0;
  let nanos = 0;
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === 0x08) seconds = r.int64();
    else if (tag === 0x10) nanos = r.int64();
    else r.skip(tag & 7);
  }
  r.pos = end;
  if (nanos < 0 || nanos > 999_999_999) throw new ProtoError(`timestamp nanos out of range: ${nanos}`);
  return new Timestamp(seconds * 1000 + Math.floor(nanos / 1_000_000), nanos % 1_000_000);
}

/** What a `Metadata` message carries that weir keeps: the `%` tree and the secrets. */
interface WireMetadata {
  value: ObjectValue | undefined;
  secrets: Map<string, string> | undefined;
}

function readMetadata(r: ProtoReader, end: number): WireMetadata {
  const m: WireMetadata = { value: undefined, secrets: undefined };
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === 0x0a) {
      const v = readValueField(r);
      if (v !== NOT_SET && isObject(v)) m.value = v;
    } else if (tag === 0x32) {
      const send = r.delimited();
      while (r.pos < send) {
        const t = r.varint();
        if (t !== 0x0a) {
          r.skip(t & 7);
          continue;
        }
        const eend = r.delimited();
        let k = '';
        let s = '';
        while (r.pos < eend) {
          const et = r.varint();
          if (et === 0x0a) k = r.string();
          else if (et === 0x12) s = r.string();
          else r.skip(et & 7);
        }
        (m.secrets ??= new Map()).set(k, s);
      }
    } else r.skip(tag & 7);
  }
  r.pos = end;
  return m;
}

function metadataOf(shape: DecodeShape, legacy: Value | typeof NOT_SET, full: WireMetadata | undefined): EventMetadata {
  const meta = new EventMetadata(shape.sourceId, shape.sourceType);
  if (full !== undefined) {
    if (full.value !== undefined && Object.keys(full.value).length > 0) meta.value = full.value;
    if (full.secrets !== undefined) meta.secrets = full.secrets;
  } else if (legacy !== NOT_SET && isObject(legacy) && Object.keys(legacy).length > 0) meta.value = legacy;
  return meta;
}

function readLog(r: ProtoReader, end: number, shape: DecodeShape, now: Timestamp): LogEvent {
  let fields: ObjectValue | undefined;
  let root: Value | typeof NOT_SET = NOT_SET;
  let legacy: Value | typeof NOT_SET = NOT_SET;
  let full: WireMetadata | undefined;
  while (r.pos < end) {
    const tag = r.varint();
    switch (tag) {
      case 0x0a:
        readMapEntry(r, r.delimited(), (fields ??= {}));
        break;
      case 0x12:
        root = readValueField(r);
        break;
      case 0x1a:
        legacy = readValueField(r);
        break;
      case 0x22:
        full = readMetadata(r, r.delimited());
        break;
      default:
        r.skip(tag & 7);
    }
  }
  r.pos = end;
  let out: ObjectValue;
  if (root !== NOT_SET) out = isObject(root) ? root : { [shape.messageKey]: root };
  else out = fields ?? {};
  if (shape.sourceTypeKey !== undefined && !(shape.sourceTypeKey in out)) out[shape.sourceTypeKey] = shape.sourceType;
  if (shape.timestampKey !== undefined && !(shape.timestampKey in out)) out[shape.timestampKey] = now;
  return new LogEvent(out, metadataOf(shape, legacy, full));
}

function readTagValues(r: ProtoReader, end: number): (string | null)[] {
  const out: (string | null)[] = [];
  while (r.pos < end) {
    const tag = r.varint();
    if (tag !== 0x0a) {
      r.skip(tag & 7);
      continue;
    }
    const vend = r.delimited();
    let v: string | null = null;
    while (r.pos < vend) {
      const t = r.varint();
      if (t === 0x0a) v = r.string();
      else r.skip(t & 7);
    }
    out.push(v);
  }
  r.pos = end;
  return out;
}

/** Repeated doubles, packed or not: appends to `out`. */
function readDoubles(r: ProtoReader, wt: number, out: number[]): void {
  if (wt === 1) {
    out.push(r.double());
    return;
  }
  const end = r.delimited();
  while (r.pos < end) out.push(r.double());
}

function readUints(r: ProtoReader, wt: number, out: number[]): void {
  if (wt === 0) {
    out.push(r.varint());
    return;
  }
  const end = r.delimited();
  while (r.pos < end) out.push(r.varint());
}

/** A metric value message: its fields by number, read generically (every version's layout is small). */
interface ValueFields {
  doubles: Map<number, number[]>;
  uints: Map<number, number[]>;
  strings: string[];
  nested: Map<number, ValueFields[]>;
}

/** Reads a metric value message; `nestedFields` are the fields that hold sub-messages. */
function readValueFields(r: ProtoReader, end: number, doubleFields: readonly number[], nestedFields: readonly number[], nestedDoubles: readonly number[] = []): ValueFields {
  const f: ValueFields = { doubles: new Map(), uints: new Map(), strings: [], nested: new Map() };
  while (r.pos < end) {
    const tag = r.varint();
    const field = tag >>> 3;
    const wt = tag & 7;
    if (nestedFields.includes(field) && wt === 2) {
      const list = f.nested.get(field) ?? [];
      list.push(readValueFields(r, r.delimited(), nestedDoubles, []));
      f.nested.set(field, list);
    } else if (doubleFields.includes(field) && (wt === 1 || wt === 2)) {
      const list = f.doubles.get(field) ?? [];
      readDoubles(r, wt, list);
      f.doubles.set(field, list);
    } else if (wt === 0 || (wt === 2 && field !== 1)) {
      const list = f.uints.get(field) ?? [];
      readUints(r, wt, list);
      f.uints.set(field, list);
    } else if (wt === 2) f.strings.push(r.string());
    else r.skip(wt);
  }
  r.pos = end;
  return f;
}

const d = (f: ValueFields, n: number): number => f.doubles.get(n)?.at(-1) ?? 0;
const u = (f: ValueFields, n: number): number => f.uints.get(n)?.at(-1) ?? 0;
const ds = (f: ValueFields, n: number): number[] => f.doubles.get(n) ?? [];
const us = (f: ValueFields, n: number): number[] => f.uints.get(n) ?? [];

/** The sketch kind weir has no model for. */
const SKETCH = 'sketch';

function readMetricValue(r: ProtoReader, field: number, end: number): MetricValue | typeof SKETCH | undefined {
  switch (field) {
    case 5:
    case 6: {
      const f = readValueFields(r, end, [1], []);
      return { type: field === 5 ? 'counter' : 'gauge', value: d(f, 1) };
    }
    case 7: {
      const values: string[] = [];
      while (r.pos < end) {
        const tag = r.varint();
        if (tag === 0x0a) values.push(r.string());
        else r.skip(tag & 7);
      }
      return { type: 'set', values };
    }
    case 8: {
      const f = readValueFields(r, end, [1], []);
      const values = ds(f, 1);
      const rates = us(f, 2);
      const samples: Sample[] = values.map((value, i) => ({ value, rate: rates[i] ?? 0 }));
      return { type: 'distribution', samples, statistic: u(f, 3) === 1 ? 'summary' : 'histogram' };
    }
    case 12: {
      const f = readValueFields(r, end, [], [1], [1]);
      const samples: Sample[] = (f.nested.get(1) ?? []).map((s) => ({ value: d(s, 1), rate: u(s, 2) }));
      return { type: 'distribution', samples, statistic: u(f, 2) === 1 ? 'summary' : 'histogram' };
    }
    case 9: {
      const f = readValueFields(r, end, [1, 4], []);
      const limits = ds(f, 1);
      const counts = us(f, 2);
      const buckets: Bucket[] = limits.map((upper_limit, i) => ({ upper_limit, count: counts[i] ?? 0 }));
      return { type: 'aggregated_histogram', buckets, count: u(f, 3), sum: d(f, 4) };
    }
    case 13:
    case 16: {
      const f = readValueFields(r, end, [3], [1], [1]);
      const buckets: Bucket[] = (f.nested.get(1) ?? []).map((b) => ({ upper_limit: d(b, 1), count: u(b, 2) }));
      return { type: 'aggregated_histogram', buckets, count: u(f, 2), sum: d(f, 3) };
    }
    case 10: {
      const f = readValueFields(r, end, [1, 2, 4], []);
      const qs = ds(f, 1);
      const vs = ds(f, 2);
      const quantiles: Quantile[] = qs.map((quantile, i) => ({ quantile, value: vs[i] ?? 0 }));
      return { type: 'aggregated_summary', quantiles, count: u(f, 3), sum: d(f, 4) };
    }
    case 14:
    case 17: {
      const f = readValueFields(r, end, [3], [1], [1, 2]);
      const quantiles: Quantile[] = (f.nested.get(1) ?? []).map((q) => ({ quantile: d(q, 1), value: d(q, 2) }));
      return { type: 'aggregated_summary', quantiles, count: u(f, 2), sum: d(f, 3) };
    }
    case 15:
      r.pos = end;
      return SKETCH;
  }
  r.pos = end;
  return undefined;
}

function readMetric(r: ProtoReader, end: number, shape: DecodeShape): MetricEvent | string {
  let name = '';
  let timestamp: Timestamp | undefined;
  let v2: Tags | undefined;
  let v1: [string, string][] | undefined;
  let kind: MetricKind = 'incremental';
  let value: MetricValue | typeof SKETCH | undefined;
  let namespace: string | undefined;
  let intervalMs: number | undefined;
  let legacy: Value | typeof NOT_SET = NOT_SET;
  let full: WireMetadata | undefined;
  while (r.pos < end) {
    const tag = r.varint();
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field >= 5 && field <= 17 && field !== 11 && wt === 2) {
      value = readMetricValue(r, field, r.delimited());
      continue;
    }
    switch (tag) {
      case 0x0a:
        name = r.string();
        break;
      case 0x12:
        timestamp = readTimestamp(r, r.delimited());
        break;
      case 0x1a: {
        const eend = r.delimited();
        let k = '';
        let s = '';
        while (r.pos < eend) {
          const t = r.varint();
          if (t === 0x0a) k = r.string();
          else if (t === 0x12) s = r.string();
          else r.skip(t & 7);
        }
        (v1 ??= []).push([k, s]);
        break;
      }
      case 0xa2: {
        // field 20: tags_v2
        const eend = r.delimited();
        let k = '';
        let values: (string | null)[] = [];
        while (r.pos < eend) {
          const t = r.varint();
          if (t === 0x0a) k = r.string();
          else if (t === 0x12) values = readTagValues(r, r.delimited());
          else r.skip(t & 7);
        }
        v2 ??= {};
        v2[k] = tagFromValues(values);
        break;
      }
      case 0x20:
        kind = r.varint() === 1 ? 'absolute' : 'incremental';
        break;
      case 0x5a:
        namespace = r.string();
        break;
      case 0x90:
        intervalMs = r.varint();
        break;
      case 0x9a:
        legacy = readValueField(r);
        break;
      case 0xaa:
        full = readMetadata(r, r.delimited());
        break;
      default:
        r.skip(wt);
    }
  }
  r.pos = end;
  if (value === SKETCH) return 'sketch metrics are not supported';
  if (value === undefined) return 'metric without a value';
  // tags_v1 holds each tag's last value, which tags_v2 already has: it only adds tags an older writer sent nowhere else
  let tags = v2;
  if (v1 !== undefined) {
    tags ??= {};
    for (const [k, s] of v1) if (!(k in tags)) tags[k] = s;
  }
  return new MetricEvent(name, kind, value, metadataOf(shape, legacy, full), namespace === '' ? undefined : namespace, tags, timestamp, intervalMs === 0 ? undefined : intervalMs);
}

function count(dropped: Map<string, number>, reason: string): void {
  dropped.set(reason, (dropped.get(reason) ?? 0) + 1);
}

/**
 * Decodes a `PushEventsRequest`; throws {@link ProtoError} when the bytes are not one. `now` is
 * the receive time stamped on logs without a timestamp.
 */
export function decodePushEvents(body: Buffer, shape: DecodeShape, now: Timestamp): Decoded {
  const r = new ProtoReader(body);
  const events: Event[] = [];
  const dropped = new Map<string, number>();
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag !== 0x0a) {
      r.skip(tag & 7);
      continue;
    }
    const wend = r.delimited();
    let event: Event | undefined;
    let reason = 'event wrapper without an event';
    while (r.pos < wend) {
      const t = r.varint();
      if (t === 0x0a) {
        event = readLog(r, r.delimited(), shape, now);
      } else if (t === 0x12) {
        const m = readMetric(r, r.delimited(), shape);
        if (typeof m === 'string') {
          event = undefined;
          reason = m;
        } else event = m;
      } else if (t === 0x1a) {
        r.pos = r.delimited();
        event = undefined;
        reason = 'traces are not supported';
      } else r.skip(t & 7);
    }
    r.pos = wend;
    if (event !== undefined) events.push(event);
    else count(dropped, reason);
  }
  return { events, dropped };
}
