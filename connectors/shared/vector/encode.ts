/**
 * weir events to Vector's `event.EventWrapper` messages (proto/event.proto), written straight from
 * the event into protobuf bytes. Types map one to one: strings are `raw_bytes`, integers
 * `integer` (int64), floats `float` (double), timestamps `google.protobuf.Timestamp`, objects
 * `map`, arrays `array`, null `null`. Regexes, which Vector's protocol cannot carry, go as the
 * bytes of their source text; a NaN float goes as null, since Vector's floats are never NaN.
 * Log and metric metadata go as Vector writes them: `metadata_full` (the `%` tree, source id and
 * type, secrets) and the deprecated `metadata` value that older receivers read.
 */
import type { Event, LogEvent, MetricEvent, MetricValue, TagValue, Tags, EventMetadata } from '../../../lib/event.js';
import { type ObjectValue, type Value, Float, Timestamp } from '../../../lib/value.js';
import { singleTagValue, tagValues } from '../../../lib/codecs/native-tags.js';
import { ProtoWriter, varintSize } from './writer.js';

const LEN = 2;
const VARINT = 0;
const I64 = 1;

/** Writes a `Value` message's content. */
export function writeValue(w: ProtoWriter, v: Value): void {
  if (typeof v === 'string') {
    w.tag(1, LEN);
    w.string(v);
  } else if (typeof v === 'number') {
    w.tag(4, VARINT);
    w.int64(v);
  } else if (typeof v === 'boolean') {
    w.tag(6, VARINT);
    w.varint(v ? 1 : 0);
  } else if (v === null) {
    w.tag(9, VARINT);
    w.varint(0);
  } else if (v instanceof Float) {
    if (Number.isNaN(v.value)) {
      w.tag(9, VARINT);
      w.varint(0);
    } else {
      w.tag(5, I64);
      w.double(v.value);
    }
  } else if (v instanceof Timestamp) {
    w.tag(2, LEN);
    writeTimestamp(w, v);
  } else if (v instanceof RegExp) {
    w.tag(1, LEN);
    w.string(v.source);
  } else if (Array.isArray(v)) {
    w.tag(8, LEN);
    const a = w.begin();
    for (let i = 0; i < v.length; i++) {
      w.tag(1, LEN);
      const s = w.begin();
      writeValue(w, v[i] as Value);
      w.end(s);
    }
    w.end(a);
  } else {
    w.tag(7, LEN);
    const m = w.begin();
    writeFields(w, 1, v);
    w.end(m);
  }
}

/** Writes the entries of a `map<string, Value>` field. */
function writeFields(w: ProtoWriter, field: number, o: ObjectValue): void {
  for (const k in o) {
    w.tag(field, LEN);
    const entry = w.begin();
    w.tag(1, LEN);
    w.string(k);
    w.tag(2, LEN);
    const val = w.begin();
    writeValue(w, o[k] as Value);
    w.end(val);
    w.end(entry);
  }
}

/** A `google.protobuf.Timestamp` message (length-prefixed): seconds and nanos, zeros left out. */
function writeTimestamp(w: ProtoWriter, t: Timestamp): void {
  const s = w.begin();
  const seconds = Math.floor(t.ms / 1000);
  const nanos = (t.ms - seconds * 1000) * 1_000_000 + t.ns;
  if (seconds !== 0) {
    w.tag(1, VARINT);
    w.int64(seconds);
  }
  if (nanos !== 0) {
    w.tag(2, VARINT);
    w.varint(nanos);
  }
  w.end(s);
}

const EMPTY: ObjectValue = {};

/** The deprecated `metadata` value and `metadata_full`, as Vector writes both. */
function writeMetadata(w: ProtoWriter, valueField: number, fullField: number, meta: EventMetadata): void {
  const value = meta.value ?? EMPTY;
  w.tag(valueField, LEN);
  let s = w.begin();
  writeValue(w, value);
  w.end(s);
  w.tag(fullField, LEN);
  s = w.begin();
  w.tag(1, LEN);
  const v = w.begin();
  writeValue(w, value);
  w.end(v);
  if (meta.sourceId !== '') {
    w.tag(3, LEN);
    w.string(meta.sourceId);
  }
  if (meta.sourceType !== '') {
    w.tag(4, LEN);
    w.string(meta.sourceType);
  }
  if (meta.secrets !== undefined && meta.secrets.size > 0) {
    w.tag(6, LEN);
    const sec = w.begin();
    for (const [k, secret] of meta.secrets) {
      w.tag(1, LEN);
      const e = w.begin();
      w.tag(1, LEN);
      w.string(k);
      w.tag(2, LEN);
      w.string(secret);
      w.end(e);
    }
    w.end(sec);
  }
  w.end(s);
}

function writeLog(w: ProtoWriter, e: LogEvent): void {
  writeFields(w, 1, e.fields);
  writeMetadata(w, 3, 4, e.meta);
}

function writeTagValue(w: ProtoWriter, v: string | null): void {
  w.tag(1, LEN);
  const s = w.begin();
  if (v !== null) {
    w.tag(1, LEN);
    w.string(v);
  }
  w.end(s);
}

function writeTags(w: ProtoWriter, tags: Tags): void {
  for (const k in tags) {
    const single = singleTagValue(tags[k] as TagValue);
    if (single === undefined) continue;
    w.tag(3, LEN);
    const e = w.begin();
    w.tag(1, LEN);
    w.string(k);
    w.tag(2, LEN);
    w.string(single);
    w.end(e);
  }
  for (const k in tags) {
    const v = tags[k] as TagValue;
    w.tag(20, LEN);
    const e = w.begin();
    w.tag(1, LEN);
    w.string(k);
    w.tag(2, LEN);
    const set = w.begin();
    const values = tagValues(v);
    for (let i = 0; i < values.length; i++) writeTagValue(w, values[i]!);
    w.end(set);
    w.end(e);
  }
}

function writeDouble(w: ProtoWriter, field: number, x: number): void {
  if (x === 0) return; // proto3 leaves zeros out (-0 too, as Vector does)
  w.tag(field, I64);
  w.double(x);
}

function writeUint(w: ProtoWriter, field: number, n: number): void {
  if (n === 0) return;
  w.tag(field, VARINT);
  w.varint(n);
}

/** The metric's value under its oneof field: the newest message of each kind, as Vector writes. */
function writeMetricValue(w: ProtoWriter, v: MetricValue): void {
  switch (v.type) {
    case 'counter':
    case 'gauge': {
      w.tag(v.type === 'counter' ? 5 : 6, LEN);
      const s = w.begin();
      writeDouble(w, 1, v.value);
      w.end(s);
      return;
    }
    case 'set': {
      w.tag(7, LEN);
      const s = w.begin();
      for (const x of v.values) {
        w.tag(1, LEN);
        w.string(x);
      }
      w.end(s);
      return;
    }
    case 'distribution': {
      w.tag(12, LEN);
      const s = w.begin();
      for (const sample of v.samples) {
        w.tag(1, LEN);
        const e = w.begin();
        writeDouble(w, 1, sample.value);
        writeUint(w, 2, sample.rate);
        w.end(e);
      }
      writeUint(w, 2, v.statistic === 'summary' ? 1 : 0);
      w.end(s);
      return;
    }
    case 'aggregated_histogram': {
      w.tag(16, LEN);
      const s = w.begin();
      for (const b of v.buckets) {
        w.tag(1, LEN);
        const e = w.begin();
        writeDouble(w, 1, b.upper_limit);
        writeUint(w, 2, b.count);
        w.end(e);
      }
      writeUint(w, 2, v.count);
      writeDouble(w, 3, v.sum);
      w.end(s);
      return;
    }
    case 'aggregated_summary': {
      w.tag(17, LEN);
      const s = w.begin();
      for (const q of v.quantiles) {
        w.tag(1, LEN);
        const e = w.begin();
        writeDouble(w, 1, q.quantile);
        writeDouble(w, 2, q.value);
        w.end(e);
      }
      writeUint(w, 2, v.count);
      writeDouble(w, 3, v.sum);
      w.end(s);
      return;
    }
  }
}

function writeMetric(w: ProtoWriter, m: MetricEvent): void {
  if (m.name !== '') {
    w.tag(1, LEN);
    w.string(m.name);
  }
  if (m.timestamp !== undefined) {
    w.tag(2, LEN);
    writeTimestamp(w, m.timestamp);
  }
  if (m.tags !== undefined) writeTags(w, m.tags);
  if (m.kind === 'absolute') {
    w.tag(4, VARINT);
    w.varint(1);
  }
  writeMetricValue(w, m.value);
  if (m.namespace !== undefined && m.namespace !== '') {
    w.tag(11, LEN);
    w.string(m.namespace);
  }
  if (m.intervalMs !== undefined) writeUint(w, 18, m.intervalMs);
  writeMetadata(w, 19, 21, m.meta);
}

/** Writes one `EventWrapper`'s content (its `log` or `metric` field). */
export function writeEvent(w: ProtoWriter, e: Event): void {
  w.tag(e.type === 'log' ? 1 : 2, LEN);
  const s = w.begin();
  if (e.type === 'log') writeLog(w, e);
  else writeMetric(w, e);
  w.end(s);
}

/** Encodes events one at a time into their own `EventWrapper` bytes, through one reused writer. */
export class WrapperEncoder {
  private readonly w = new ProtoWriter(16 * 1024);

  /** One event's `EventWrapper` bytes (a copy the caller owns). */
  encode(e: Event): Buffer {
    const w = this.w;
    w.reset();
    writeEvent(w, e);
    return Buffer.from(w.view());
  }
}

/** Bytes of a `vector.PushEventsRequest` holding the given `EventWrapper` messages. */
export function pushEventsRequest(wrappers: readonly Uint8Array[]): Buffer {
  let size = 0;
  for (let i = 0; i < wrappers.length; i++) {
    const n = wrappers[i]!.length;
    size += 1 + varintSize(n) + n;
  }
  const w = new ProtoWriter(size);
  for (let i = 0; i < wrappers.length; i++) {
    w.tag(1, LEN);
    w.bytes(wrappers[i]!);
  }
  return w.buf.subarray(0, w.pos);
}

