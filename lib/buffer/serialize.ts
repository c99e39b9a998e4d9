/**
 * Lossless binary form of events for the disk buffer (`disk`, format version 2).
 *
 * Every value kind keeps its identity: integers and floats stay distinct (`1` vs `1.0`), timestamps
 * keep nanoseconds, regexes keep their flags, plain non-integral numbers (never produced by the
 * value model, but possible) round-trip as numbers. Metric events keep Vector's model. Metadata
 * keeps `sourceId`, `sourceType` and the `%` tree; acknowledgement notifiers are process-local and
 * never written.
 *
 * Layout of one event: kind byte, metadata, body. Strings are a LEB128 byte length and UTF-8; a
 * length may be written with padding continuation bytes (non-minimal LEB128) so the prefix can be
 * reserved before the string is encoded. Objects end with a zero byte: keys carry length + 1.
 * A log event whose fields have the same names, in the same order, as the previous log event of
 * its record stores only their values (tag 12): a record of one source's lines names its fields once.
 */
import { crc32 as zlibCrc32 } from 'node:zlib';
import { type Event, EventMetadata, LogEvent, type MetricKind, type MetricValue, MetricEvent, type TagValue, type Tags } from '../event.js';
import { Float, type ObjectValue, Timestamp, type Value } from '../value.js';
import { utf8Slice, utf8Write } from '../utf8.js';

/** Thrown when bytes do not decode to an event (a damaged record). */
export class DecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecodeError';
  }
}

const T_NULL = 0;
const T_FALSE = 1;
const T_TRUE = 2;
const T_UINT = 3;
const T_NINT = 4;
const T_FLOAT = 5;
const T_NUMBER = 6;
const T_STRING = 7;
const T_TIMESTAMP = 8;
const T_REGEX = 9;
const T_ARRAY = 10;
const T_OBJECT = 11;
/** Log fields with the names of the previous log event of the record: values only, in that order. */
const T_FIELDS_AS_BEFORE = 12;

const E_LOG = 1;
const E_METRIC = 2;

/** Metadata flags: same source ids as the previous event of the record; a `%` tree follows. */
const M_SAME_SOURCE = 1;
const M_VALUE = 2;

const METRIC_TYPES = ['counter', 'gauge', 'set', 'distribution', 'aggregated_histogram', 'aggregated_summary'] as const;

/** Writes `s` at `at` (room for 3 bytes per UTF-16 unit ensured); returns the bytes written. */
function putUtf8(buf: Buffer, s: string, at: number): number {
  const n = s.length;
  if (n < 24) {
    // short strings (field names, hosts): a loop beats a native call while they are ASCII
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      buf[at + i] = c;
    }
    if (i === n) return n;
  }
  return utf8Write(buf, s, at);
}

/** Growable byte sink; one per record being built, reused across events. */
export class ByteWriter {
  buf: Buffer;
  pos = 0;
  constructor(initial = 4096) {
    this.buf = Buffer.allocUnsafe(initial);
  }
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
  u8(x: number): void {
    this.ensure(1);
    this.buf[this.pos++] = x;
  }
  u32(x: number): void {
    this.ensure(4);
    this.buf.writeUInt32BE(x, this.pos);
    this.pos += 4;
  }
  f64(x: number): void {
    this.ensure(8);
    this.buf.writeDoubleBE(x, this.pos);
    this.pos += 8;
  }
  /** LEB128 of a non-negative safe integer. */
  uint(n: number): void {
    this.ensure(8);
    const b = this.buf;
    while (n >= 0x80) {
      b[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    b[this.pos++] = n;
  }
  /** UTF-8 string with its byte length (+ `bias`, so objects can use 0 as their end marker). */
  str(s: string, bias = 0): void {
    const worst = s.length * 3 + bias;
    if (worst < 0x80) {
      this.ensure(1 + worst);
      const n = putUtf8(this.buf, s, this.pos + 1);
      this.buf[this.pos] = n + bias;
      this.pos += 1 + n;
    } else if (worst < 0x4000) {
      this.ensure(2 + worst);
      const n = putUtf8(this.buf, s, this.pos + 2) + bias;
      this.buf[this.pos] = (n & 0x7f) | 0x80; // padded 2-byte LEB128, reserved before encoding
      this.buf[this.pos + 1] = n >>> 7;
      this.pos += 2 + n - bias;
    } else {
      const n = Buffer.byteLength(s, 'utf8');
      this.uint(n + bias);
      this.ensure(n);
      this.pos += putUtf8(this.buf, s, this.pos);
    }
  }
  /** Bytes written so far (a view, valid until the next write). */
  view(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

/** Cursor over one record; every read checks bounds and throws {@link DecodeError}. */
export class ByteReader {
  pos: number;
  constructor(
    readonly buf: Buffer,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }
  private need(n: number): void {
    if (this.pos + n > this.end) throw new DecodeError(`truncated at byte ${this.pos}`);
  }
  u8(): number {
    this.need(1);
    return this.buf[this.pos++]!;
  }
  u32(): number {
    this.need(4);
    const x = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return x;
  }
  f64(): number {
    this.need(8);
    const x = this.buf.readDoubleBE(this.pos);
    this.pos += 8;
    return x;
  }
  uint(): number {
    let n = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.u8();
      n += (b & 0x7f) * scale;
      if (b < 0x80) return n;
      scale *= 0x80;
    }
    throw new DecodeError(`varint too long at byte ${this.pos}`);
  }
  strOf(n: number): string {
    this.need(n);
    const start = this.pos;
    this.pos += n;
    const b = this.buf;
    if (n < 24) {
      let s = '';
      let i = start;
      for (; i < this.pos; i++) {
        const c = b[i]!;
        if (c >= 0x80) break;
        s += String.fromCharCode(c);
      }
      if (i === this.pos) return s;
    }
    return utf8Slice(b, start, this.pos);
  }
  str(): string {
    return this.strOf(this.uint());
  }
}

/** Appends one value. */
export function writeValue(w: ByteWriter, v: Value): void {
  if (v === null || v === undefined) return w.u8(T_NULL); // an absent value is stored as null
  switch (typeof v) {
    case 'string':
      w.u8(T_STRING);
      return w.str(v);
    case 'boolean':
      return w.u8(v ? T_TRUE : T_FALSE);
    case 'number':
      if (Number.isSafeInteger(v) && !Object.is(v, -0)) {
        if (v >= 0) {
          w.u8(T_UINT);
          w.uint(v);
        } else {
          w.u8(T_NINT);
          w.uint(-v);
        }
      } else {
        w.u8(T_NUMBER);
        w.f64(v);
      }
      return;
  }
  if (v instanceof Float) {
    w.u8(T_FLOAT);
    return w.f64(v.value);
  }
  if (v instanceof Timestamp) {
    w.u8(T_TIMESTAMP);
    w.f64(v.ms);
    return w.uint(v.ns);
  }
  if (v instanceof RegExp) {
    w.u8(T_REGEX);
    w.str(v.source);
    return w.str(v.flags);
  }
  if (Array.isArray(v)) {
    w.u8(T_ARRAY);
    w.uint(v.length);
    for (let i = 0; i < v.length; i++) writeValue(w, v[i] as Value);
    return;
  }
  w.u8(T_OBJECT);
  for (const k in v) {
    w.str(k, 1);
    writeValue(w, v[k] as Value);
  }
  w.u8(0);
}

/** Reads one value. */
export function readValue(r: ByteReader): Value {
  const tag = r.u8();
  switch (tag) {
    case T_NULL:
      return null;
    case T_FALSE:
      return false;
    case T_TRUE:
      return true;
    case T_UINT:
      return r.uint();
    case T_NINT:
      return -r.uint();
    case T_FLOAT:
      return new Float(r.f64());
    case T_NUMBER:
      return r.f64();
    case T_STRING:
      return r.str();
    case T_TIMESTAMP: {
      const ms = r.f64();
      const ns = r.uint();
      if (!Number.isInteger(ms) || ns >= 1_000_000) throw new DecodeError(`bad timestamp at byte ${r.pos}`);
      return new Timestamp(ms, ns);
    }
    case T_REGEX: {
      const source = r.str();
      const flags = r.str();
      try {
        return new RegExp(source, flags);
      } catch {
        throw new DecodeError(`bad regex at byte ${r.pos}`);
      }
    }
    case T_ARRAY: {
      const n = r.uint();
      if (n > r.end - r.pos) throw new DecodeError(`array length ${n} exceeds record at byte ${r.pos}`);
      const out: Value[] = new Array(n);
      for (let i = 0; i < n; i++) out[i] = readValue(r);
      return out;
    }
    case T_OBJECT:
      return readObject(r);
    default:
      throw new DecodeError(`unknown value tag ${tag} at byte ${r.pos - 1}`);
  }
}

/** Sets a field; a plain assignment to `__proto__` would set the prototype instead. */
export function setOwn<T>(o: Record<string, T>, k: string, v: T): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

function readObject(r: ByteReader, names?: string[]): ObjectValue {
  const out: ObjectValue = {};
  for (;;) {
    const n = r.uint();
    if (n === 0) return out;
    const k = r.strOf(n - 1);
    names?.push(k);
    setOwn(out, k, readValue(r));
  }
}

/** Field names of the last log event written or read in a record; one per record, reset with it. */
export interface FieldNames {
  names: string[] | undefined;
}

/** A log event's fields: values only when the names repeat the previous log event's. */
function writeFields(w: ByteWriter, fields: ObjectValue, last: FieldNames): void {
  if (Array.isArray(fields) || fields instanceof Float || fields instanceof Timestamp || fields instanceof RegExp) {
    last.names = undefined; // not a map of fields (the model forbids it): written as it is
    return writeValue(w, fields);
  }
  const names = last.names;
  if (names !== undefined) {
    // values written while the names are compared (one walk); different names: rewritten below
    const at = w.pos;
    w.u8(T_FIELDS_AS_BEFORE);
    let i = 0;
    for (const k in fields) {
      if (i === names.length || names[i] !== k) {
        i = -1;
        break;
      }
      writeValue(w, fields[k] as Value);
      i++;
    }
    if (i === names.length) return;
    w.pos = at;
  }
  const next: string[] = [];
  for (const k in fields) next.push(k);
  last.names = next;
  writeValue(w, fields);
}

function readFields(r: ByteReader, last: FieldNames): Value {
  if (r.pos >= r.end) throw new DecodeError(`truncated at byte ${r.pos}`);
  const tag = r.buf[r.pos]!;
  if (tag === T_OBJECT) {
    r.pos++;
    const names: string[] = [];
    const out = readObject(r, names);
    last.names = names;
    return out;
  }
  if (tag !== T_FIELDS_AS_BEFORE) return readValue(r);
  r.pos++;
  const names = last.names;
  if (names === undefined) throw new DecodeError(`fields refer to a previous event at byte ${r.pos - 1}`);
  const out: ObjectValue = {};
  for (let i = 0; i < names.length; i++) setOwn(out, names[i]!, readValue(r));
  return out;
}

function writeTags(w: ByteWriter, tags: Tags): void {
  const keys = Object.keys(tags);
  w.uint(keys.length);
  for (const k of keys) {
    w.str(k);
    const t = tags[k] as TagValue;
    if (t === null) w.u8(0);
    else if (typeof t === 'string') {
      w.u8(1);
      w.str(t);
    } else {
      w.u8(2);
      w.uint(t.length);
      for (const x of t) {
        if (x === null) w.u8(0);
        else {
          w.u8(1);
          w.str(x);
        }
      }
    }
  }
}

function readTags(r: ByteReader): Tags {
  const n = r.uint();
  const out: Tags = {};
  for (let i = 0; i < n; i++) {
    const k = r.str();
    const t = r.u8();
    if (t === 0) setOwn<TagValue>(out, k, null);
    else if (t === 1) setOwn<TagValue>(out, k, r.str());
    else if (t === 2) {
      const m = r.uint();
      if (m > r.end - r.pos) throw new DecodeError(`tag list length ${m} exceeds record`);
      const xs: (string | null)[] = [];
      for (let j = 0; j < m; j++) xs.push(r.u8() === 0 ? null : r.str());
      setOwn<TagValue>(out, k, xs);
    } else throw new DecodeError(`unknown tag value kind ${t}`);
  }
  return out;
}

function writeMetricValue(w: ByteWriter, v: MetricValue): void {
  w.u8(METRIC_TYPES.indexOf(v.type));
  switch (v.type) {
    case 'counter':
    case 'gauge':
      return w.f64(v.value);
    case 'set':
      w.uint(v.values.length);
      for (const s of v.values) w.str(s);
      return;
    case 'distribution':
      w.u8(v.statistic === 'summary' ? 1 : 0);
      w.uint(v.samples.length);
      for (const s of v.samples) {
        w.f64(s.value);
        w.f64(s.rate);
      }
      return;
    case 'aggregated_histogram':
      w.uint(v.buckets.length);
      for (const b of v.buckets) {
        w.f64(b.upper_limit);
        w.f64(b.count);
      }
      w.f64(v.count);
      return w.f64(v.sum);
    case 'aggregated_summary':
      w.uint(v.quantiles.length);
      for (const q of v.quantiles) {
        w.f64(q.quantile);
        w.f64(q.value);
      }
      w.f64(v.count);
      return w.f64(v.sum);
  }
}

function readCount(r: ByteReader, minBytesEach: number): number {
  const n = r.uint();
  if (n * minBytesEach > r.end - r.pos) throw new DecodeError(`list length ${n} exceeds record at byte ${r.pos}`);
  return n;
}

function readMetricValue(r: ByteReader): MetricValue {
  const type = METRIC_TYPES[r.u8()];
  switch (type) {
    case 'counter':
    case 'gauge':
      return { type, value: r.f64() };
    case 'set': {
      const n = readCount(r, 1);
      const values: string[] = [];
      for (let i = 0; i < n; i++) values.push(r.str());
      return { type, values };
    }
    case 'distribution': {
      const statistic = r.u8() === 1 ? 'summary' : 'histogram';
      const n = readCount(r, 16);
      const samples = [];
      for (let i = 0; i < n; i++) samples.push({ value: r.f64(), rate: r.f64() });
      return { type, samples, statistic };
    }
    case 'aggregated_histogram': {
      const n = readCount(r, 16);
      const buckets = [];
      for (let i = 0; i < n; i++) buckets.push({ upper_limit: r.f64(), count: r.f64() });
      return { type, buckets, count: r.f64(), sum: r.f64() };
    }
    case 'aggregated_summary': {
      const n = readCount(r, 16);
      const quantiles = [];
      for (let i = 0; i < n; i++) quantiles.push({ quantile: r.f64(), value: r.f64() });
      return { type, quantiles, count: r.f64(), sum: r.f64() };
    }
    default:
      throw new DecodeError(`unknown metric value type at byte ${r.pos - 1}`);
  }
}

const MF_NAMESPACE = 1;
const MF_TAGS = 2;
const MF_TIMESTAMP = 4;
const MF_INTERVAL = 8;

/**
 * Appends one event. `prev` is the previous event of the same record (or undefined): consecutive
 * events of one source store their ids once.
 */
export function writeEvent(w: ByteWriter, e: Event, prev: Event | undefined, last?: FieldNames): void {
  w.u8(e.type === 'log' ? E_LOG : E_METRIC);
  const m = e.meta;
  const same = prev !== undefined && prev.meta.sourceId === m.sourceId && prev.meta.sourceType === m.sourceType;
  w.u8((same ? M_SAME_SOURCE : 0) | (m.value !== undefined ? M_VALUE : 0));
  if (!same) {
    w.str(m.sourceId);
    w.str(m.sourceType);
  }
  if (m.value !== undefined) writeValue(w, m.value);
  if (e.type === 'log') return last ? writeFields(w, e.fields, last) : writeValue(w, e.fields);
  w.str(e.name);
  w.u8(e.kind === 'incremental' ? 1 : 0);
  writeMetricValue(w, e.value);
  const flags =
    (e.namespace !== undefined ? MF_NAMESPACE : 0) |
    (e.tags !== undefined ? MF_TAGS : 0) |
    (e.timestamp !== undefined ? MF_TIMESTAMP : 0) |
    (e.intervalMs !== undefined ? MF_INTERVAL : 0);
  w.u8(flags);
  if (e.namespace !== undefined) w.str(e.namespace);
  if (e.tags !== undefined) writeTags(w, e.tags);
  if (e.timestamp !== undefined) {
    w.f64(e.timestamp.ms);
    w.uint(e.timestamp.ns);
  }
  if (e.intervalMs !== undefined) w.f64(e.intervalMs);
}

/** Reads one event; `prev` as in {@link writeEvent}. */
export function readEvent(r: ByteReader, prev: Event | undefined, last?: FieldNames): Event {
  const kind = r.u8();
  if (kind !== E_LOG && kind !== E_METRIC) throw new DecodeError(`unknown event kind ${kind} at byte ${r.pos - 1}`);
  const flags = r.u8();
  let sourceId: string;
  let sourceType: string;
  if (flags & M_SAME_SOURCE) {
    if (!prev) throw new DecodeError(`first event refers to a previous source at byte ${r.pos - 1}`);
    sourceId = prev.meta.sourceId;
    sourceType = prev.meta.sourceType;
  } else {
    sourceId = r.str();
    sourceType = r.str();
  }
  let metaValue: ObjectValue | undefined;
  if (flags & M_VALUE) {
    const v = readValue(r);
    if (v === null || typeof v !== 'object' || Array.isArray(v) || v instanceof Float || v instanceof Timestamp || v instanceof RegExp)
      throw new DecodeError(`metadata is not an object at byte ${r.pos}`);
    metaValue = v;
  }
  const meta = new EventMetadata(sourceId, sourceType, undefined, metaValue);
  if (kind === E_LOG) {
    const fields = last ? readFields(r, last) : readValue(r);
    if (fields === null || typeof fields !== 'object' || Array.isArray(fields) || fields instanceof Float || fields instanceof Timestamp || fields instanceof RegExp)
      throw new DecodeError(`log fields are not an object at byte ${r.pos}`);
    return new LogEvent(fields, meta);
  }
  const name = r.str();
  const metricKind: MetricKind = r.u8() === 1 ? 'incremental' : 'absolute';
  const value = readMetricValue(r);
  const mf = r.u8();
  const namespace = mf & MF_NAMESPACE ? r.str() : undefined;
  const tags = mf & MF_TAGS ? readTags(r) : undefined;
  let timestamp: Timestamp | undefined;
  if (mf & MF_TIMESTAMP) {
    const ms = r.f64();
    const ns = r.uint();
    timestamp = new Timestamp(ms, ns);
  }
  const intervalMs = mf & MF_INTERVAL ? r.f64() : undefined;
  return new MetricEvent(name, metricKind, value, meta, namespace, tags, timestamp, intervalMs);
}

const CRC_TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

/** CRC-32 (IEEE): zlib's native one where Node has it (20.15+), the same polynomial otherwise. */
export const crc32: (data: Uint8Array) => number =
  typeof zlibCrc32 === 'function'
    ? (data) => zlibCrc32(data)
    : (data) => {
        let c = -1;
        for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
        return (c ^ -1) >>> 0;
      };
