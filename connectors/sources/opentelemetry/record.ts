/**
 * OTLP log records to events (Vector's legacy layout), one event per `LogRecord`, from
 * either a protobuf-decoded request (protobufjs messages: camelCase fields, int64 as Long, bytes
 * as Uint8Array) or an OTLP/JSON body (the same camelCase names; int64 as string or number,
 * `traceId`/`spanId` as hex, `bytesValue` as base64). Unknown JSON fields are ignored.
 */
import { EventMetadata, LogEvent } from '../../../lib/event.js';
import { Float, type ObjectValue, Timestamp, type Value, cloneValue } from '../../../lib/value.js';

/** What every event of a source shares: ids and the schema keys. */
export interface RecordShape {
  readonly sourceId: string;
  readonly sourceType: string;
  readonly messageKey: string;
  readonly timestampKey: string;
  readonly sourceTypeKey: string;
}

/** The events of one request, and the records refused (bad trace or span id) with the first reason. */
export interface Converted {
  readonly events: LogEvent[];
  rejected: number;
  reason: string;
}

type Obj = Record<string, unknown>;
type LongLike = { low: number; high: number; unsigned?: boolean };

const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x) && !(x instanceof Uint8Array);
const list = (x: unknown): readonly unknown[] => (Array.isArray(x) ? x : EMPTY);
const EMPTY: readonly unknown[] = [];
const isLong = (x: unknown): x is LongLike => typeof x === 'object' && x !== null && typeof (x as LongLike).low === 'number' && typeof (x as LongLike).high === 'number';

/** The request is not OTLP at all (a JSON body of the wrong shape). */
export class OtlpShapeError extends Error {
  override name = 'OtlpShapeError';
}

const NS_PER_MS = 1_000_000;
/** 2^32 ns as whole milliseconds and the nanosecond remainder: 4294 ms + 967296 ns. */
const HIGH_MS = 4294;
const HIGH_NS = 967_296;

/**
 * Unsigned 64-bit nanoseconds since the epoch as a timestamp, or undefined when unset, zero or
 * malformed. A Long is split exactly in doubles (high * 967296 + low stays below 2^53), with no BigInt.
 */
function timestampOf(x: unknown): Timestamp | undefined {
  if (isLong(x)) {
    const high = x.high >>> 0;
    const low = x.low >>> 0;
    if (high === 0 && low === 0) return undefined;
    const rest = high * HIGH_NS + low;
    const restMs = Math.floor(rest / NS_PER_MS);
    return new Timestamp(high * HIGH_MS + restMs, rest - restMs * NS_PER_MS);
  }
  if (typeof x === 'string') return /^\d+$/.test(x) && !/^0+$/.test(x) ? Timestamp.fromNanos(BigInt(x)) : undefined;
  // a JSON number past 2^53 has already lost its low digits: keep the milliseconds
  if (typeof x === 'number' && x > 0 && Number.isFinite(x)) return Number.isSafeInteger(x) ? Timestamp.fromNanos(BigInt(x)) : new Timestamp(Math.floor(x / NS_PER_MS), 0);
  return undefined;
}

/** A 32-bit or 64-bit integer field as a number (int64 beyond 2^53 loses precision, as all integers do here). */
function int(x: unknown): number {
  if (typeof x === 'number') return Math.trunc(x);
  if (isLong(x)) return x.unsigned ? (x.high >>> 0) * 4294967296 + (x.low >>> 0) : x.high * 4294967296 + (x.low >>> 0);
  if (typeof x === 'string' && /^-?\d+$/.test(x)) return Number(x);
  return 0;
}

function str(x: unknown): string {
  return typeof x === 'string' ? x : '';
}

const HEX_PAIRS = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** `bytes` as lowercase hex (ids are 8 or 16 bytes: a table beats a Buffer round trip); JSON already carries hex. */
function hexOf(x: unknown): string {
  if (x instanceof Uint8Array) {
    let out = '';
    for (let i = 0; i < x.length; i++) out += HEX_PAIRS[x[i]!]!;
    return out;
  }
  return typeof x === 'string' ? x.toLowerCase() : '';
}

const HEX = /^[0-9a-f]*$/;

const VALUE_KEYS = ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] as const;

/**
 * Which member of AnyValue's oneof is set: protobufjs answers through the oneof's own getter
 * (`value`; every member also has a default on the prototype), JSON by the first key present.
 */
function valueKind(v: Obj, json: boolean): string | undefined {
  if (!json) return (v as { value?: string }).value;
  for (let i = 0; i < VALUE_KEYS.length; i++) if (v[VALUE_KEYS[i]!] !== undefined && v[VALUE_KEYS[i]!] !== null) return VALUE_KEYS[i];
  return undefined;
}

/** AnyValue to an event value; an AnyValue with no value set is null (as in Vector). */
export function anyValue(v: unknown, json: boolean): Value {
  if (!isObj(v)) return null;
  switch (valueKind(v, json)) {
    case 'stringValue':
      return str(v.stringValue);
    case 'boolValue':
      return v.boolValue === true;
    case 'intValue':
      return int(v.intValue);
    case 'doubleValue': {
      const d = typeof v.doubleValue === 'number' ? v.doubleValue : Number(v.doubleValue);
      return Number.isNaN(d) ? null : new Float(d);
    }
    case 'arrayValue': {
      const values = list((v.arrayValue as Obj).values);
      const out: Value[] = new Array(values.length);
      for (let i = 0; i < values.length; i++) out[i] = anyValue(values[i], json);
      return out;
    }
    case 'kvlistValue':
      return keyValues((v.kvlistValue as Obj).values, json);
    case 'bytesValue': {
      const b = v.bytesValue;
      if (b instanceof Uint8Array) return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');
      return typeof b === 'string' ? Buffer.from(b, 'base64').toString('utf8') : '';
    }
    default:
      return null;
  }
}

/** KeyValue list to an object: a KeyValue without `value` is dropped; duplicate keys, last wins. */
export function keyValues(kvs: unknown, json: boolean): ObjectValue {
  const out: ObjectValue = {};
  const items = list(kvs);
  for (let i = 0; i < items.length; i++) {
    const kv = items[i];
    if (!isObj(kv) || kv.value === undefined || kv.value === null) continue;
    out[str(kv.key)] = anyValue(kv.value, json);
  }
  return out;
}

const hasKeys = (o: ObjectValue) => {
  for (const _ in o) return true;
  return false;
};

/**
 * Converts every record of an `ExportLogsServiceRequest`. `nowMs` is the one "now" of the request
 * (shared by a resource's records, as in Vector). Records with a trace id other than 16 bytes or a
 * span id other than 8 (OTLP) are refused and counted in `rejected`.
 */
export function convertRequest(shape: RecordShape, request: unknown, json: boolean, nowMs: number): Converted {
  if (!isObj(request) || (request.resourceLogs !== undefined && !Array.isArray(request.resourceLogs))) throw new OtlpShapeError('resourceLogs must be an array');
  const out: Converted = { events: [], rejected: 0, reason: '' };
  const now = new Timestamp(nowMs, 0);
  const resources = list(request.resourceLogs);
  for (let r = 0; r < resources.length; r++) {
    const rl = resources[r];
    if (!isObj(rl)) throw new OtlpShapeError('resourceLogs entries must be objects');
    const resource = isObj(rl.resource) ? keyValues(rl.resource.attributes, json) : undefined;
    const scopes = list(rl.scopeLogs);
    for (let s = 0; s < scopes.length; s++) {
      const sl = scopes[s];
      if (!isObj(sl)) throw new OtlpShapeError('scopeLogs entries must be objects');
      const scope = isObj(sl.scope) ? scopeValue(sl.scope, json) : undefined;
      const records = list(sl.logRecords);
      for (let i = 0; i < records.length; i++) {
        const rec = records[i];
        if (!isObj(rec)) throw new OtlpShapeError('logRecords entries must be objects');
        const e = recordEvent(shape, rec, resource, scope, json, now);
        if (typeof e === 'string') {
          if (out.rejected++ === 0) out.reason = e;
        } else out.events.push(e);
      }
    }
  }
  return out;
}

/** The `scope` object: only the parts that are set; undefined when nothing is. */
function scopeValue(scope: Obj, json: boolean): ObjectValue | undefined {
  const out: ObjectValue = {};
  const name = str(scope.name);
  const version = str(scope.version);
  if (name !== '') out.name = name;
  if (version !== '') out.version = version;
  const attributes = keyValues(scope.attributes, json);
  if (hasKeys(attributes)) out.attributes = attributes;
  const dropped = int(scope.droppedAttributesCount);
  if (dropped > 0) out.dropped_attributes_count = dropped;
  return hasKeys(out) ? out : undefined;
}

/** One event in the reference's insertion order, or the reason the record is refused. */
function recordEvent(shape: RecordShape, rec: Obj, resource: ObjectValue | undefined, scope: ObjectValue | undefined, json: boolean, now: Timestamp): LogEvent | string {
  const traceId = hexOf(rec.traceId);
  const spanId = hexOf(rec.spanId);
  // binary ids are hex by construction; JSON ones are checked
  if (traceId !== '' && (traceId.length !== 32 || (json && !HEX.test(traceId)))) return `invalid trace id "${traceId}": must be 16 bytes`;
  if (spanId !== '' && (spanId.length !== 16 || (json && !HEX.test(spanId)))) return `invalid span id "${spanId}": must be 8 bytes`;
  const fields: ObjectValue = {};
  // a body with no value set writes nothing (only a set oneof gives `message`)
  if (isObj(rec.body) && valueKind(rec.body, json) !== undefined) fields[shape.messageKey] = anyValue(rec.body, json);
  // resource and scope are shared by many records; each event gets its own copy (events are mutable downstream)
  if (scope !== undefined) fields.scope = cloneValue(scope);
  if (resource !== undefined && hasKeys(resource)) fields.resources = cloneValue(resource);
  const attributes = keyValues(rec.attributes, json);
  if (hasKeys(attributes)) fields.attributes = attributes;
  if (traceId !== '') fields.trace_id = traceId;
  if (spanId !== '') fields.span_id = spanId;
  const severityText = str(rec.severityText);
  if (severityText !== '') fields.severity_text = severityText;
  const severity = int(rec.severityNumber);
  if (severity !== 0) fields.severity_number = severity;
  const flags = int(rec.flags);
  if (flags > 0) fields.flags = flags;
  fields.dropped_attributes_count = int(rec.droppedAttributesCount);
  const observed = timestampOf(rec.observedTimeUnixNano) ?? now;
  fields.observed_timestamp = observed;
  fields[shape.timestampKey] = timestampOf(rec.timeUnixNano) ?? observed;
  fields[shape.sourceTypeKey] = shape.sourceType;
  return new LogEvent(fields, new EventMetadata(shape.sourceId, shape.sourceType));
}
