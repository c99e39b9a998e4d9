/**
 * `disk_v1` (version 1 of the on-disk format): one event per record, as JSON with
 * type tags, in `<data_dir>/buffer/v1/<sink id>`. Simpler and larger than version 2; kept for the
 * sinks whose schema still offers it.
 *
 * Tags: a float is `{"$f": n}`, a timestamp `{"$t": [ms, ns]}`, a regex `{"$r": [source, flags]}`,
 * a number the value model would not hold as an integer `{"$n": n}`; non-finite numbers are written
 * as their text. An object with a key starting with `$` is wrapped as `{"$o": {…}}`, so a tag is
 * never mistaken for data. Integers, strings, booleans, null, arrays and other objects are plain.
 */
import { type Event, EventMetadata, LogEvent, type MetricValue, MetricEvent, type Tags } from '../event.js';
import { Float, type ObjectValue, Timestamp, type Value } from '../value.js';
import type { RecordBuilder, RecordFormat } from './disk.js';
import { DecodeError, setOwn } from './serialize.js';

/** JSON keeps neither non-finite numbers nor the sign of zero: those are written as text. */
const num = (n: number): number | string => (Number.isFinite(n) && !Object.is(n, -0) ? n : Object.is(n, -0) ? '-0' : String(n));

function tag(v: Value): unknown {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isSafeInteger(v) && !Object.is(v, -0) ? v : { $n: num(v) };
  if (v instanceof Float) return { $f: num(v.value) };
  if (v instanceof Timestamp) return { $t: [v.ms, v.ns] };
  if (v instanceof RegExp) return { $r: [v.source, v.flags] };
  if (Array.isArray(v)) return v.map(tag);
  const out: Record<string, unknown> = {};
  let wrap = false;
  for (const k in v) {
    if (k.charCodeAt(0) === 36 /* $ */) wrap = true;
    setOwn(out, k, tag(v[k] as Value));
  }
  return wrap ? { $o: out } : out;
}

const toNumber = (j: unknown): number => {
  if (typeof j === 'number') return j;
  if (typeof j === 'string') return Number(j);
  throw new DecodeError('expected a number');
};

function untag(j: unknown): Value {
  if (j === null || typeof j === 'string' || typeof j === 'boolean') return j;
  if (typeof j === 'number') {
    if (!Number.isInteger(j)) throw new DecodeError('untagged non-integral number');
    return j;
  }
  if (Array.isArray(j)) return j.map(untag);
  if (typeof j !== 'object') throw new DecodeError(`unexpected ${typeof j}`);
  const o = j as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 1 && keys[0]!.charCodeAt(0) === 36) {
    const x = o[keys[0]!];
    switch (keys[0]) {
      case '$f':
        return new Float(toNumber(x));
      case '$n':
        return toNumber(x);
      case '$t': {
        const [ms, ns] = x as [unknown, unknown];
        if (!Array.isArray(x) || !Number.isInteger(ms) || !Number.isInteger(ns)) throw new DecodeError('bad timestamp');
        return new Timestamp(ms as number, ns as number);
      }
      case '$r': {
        if (!Array.isArray(x) || typeof x[0] !== 'string' || typeof x[1] !== 'string') throw new DecodeError('bad regex');
        return new RegExp(x[0], x[1]);
      }
      case '$o':
        if (x === null || typeof x !== 'object' || Array.isArray(x)) throw new DecodeError('bad wrapped object');
        return untagObject(x as Record<string, unknown>);
      default:
        throw new DecodeError(`unknown tag ${keys[0]}`);
    }
  }
  return untagObject(o);
}

function untagObject(o: Record<string, unknown>): ObjectValue {
  const out: ObjectValue = {};
  for (const k of Object.keys(o)) {
    setOwn(out, k, untag(o[k]));
  }
  return out;
}

/** Metric values are plain numbers; those JSON cannot hold become `{"$x": text}`. */
const metricReplacer = (_k: string, x: unknown): unknown => (typeof x === 'number' && typeof num(x) === 'string' ? { $x: num(x) } : x);
function reviveMetric(x: unknown): unknown {
  if (x === null || typeof x !== 'object') return x;
  if (Array.isArray(x)) return x.map(reviveMetric);
  const o = x as Record<string, unknown>;
  if (typeof o.$x === 'string' && Object.keys(o).length === 1) return Number(o.$x);
  for (const k of Object.keys(o)) o[k] = reviveMetric(o[k]);
  return o;
}

/** JSON text of one event. */
export function eventToV1(e: Event): string {
  const m = e.meta;
  const head = { s: [m.sourceId, m.sourceType], v: m.value === undefined ? undefined : tag(m.value) };
  if (e.type === 'log') return JSON.stringify({ t: 'log', ...head, f: tag(e.fields) });
  const metric = {
    n: e.name,
    k: e.kind,
    x: e.value,
    ns: e.namespace,
    g: e.tags,
    ts: e.timestamp && [e.timestamp.ms, e.timestamp.ns],
    i: e.intervalMs,
  };
  // the replacer applies to the metric part only: tagged fields already hold non-finite numbers as text
  const text = JSON.stringify({ t: 'metric', ...head });
  return `${text.slice(0, -1)},"m":${JSON.stringify(metric, metricReplacer)}}`;
}

/** Event of one JSON record; throws {@link DecodeError} on anything else. */
export function eventFromV1(text: string): Event {
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new DecodeError(`invalid JSON: ${(err as Error).message}`);
  }
  if (j === null || typeof j !== 'object') throw new DecodeError('record is not an object');
  const s = j.s as unknown[];
  if (!Array.isArray(s) || typeof s[0] !== 'string' || typeof s[1] !== 'string') throw new DecodeError('bad source ids');
  let metaValue: ObjectValue | undefined;
  if (j.v !== undefined) {
    const mv = untag(j.v);
    if (mv === null || typeof mv !== 'object' || Array.isArray(mv) || mv instanceof Float || mv instanceof Timestamp || mv instanceof RegExp)
      throw new DecodeError('metadata is not an object');
    metaValue = mv;
  }
  const meta = new EventMetadata(s[0], s[1], undefined, metaValue);
  if (j.t === 'log') {
    const f = untag(j.f);
    if (f === null || typeof f !== 'object' || Array.isArray(f) || f instanceof Float || f instanceof Timestamp || f instanceof RegExp)
      throw new DecodeError('log fields are not an object');
    return new LogEvent(f, meta);
  }
  if (j.t !== 'metric') throw new DecodeError(`unknown event type ${String(j.t)}`);
  const m = reviveMetric(j.m) as Record<string, unknown>;
  if (m === null || typeof m !== 'object' || typeof m.n !== 'string' || (m.k !== 'absolute' && m.k !== 'incremental'))
    throw new DecodeError('bad metric');
  const x = m.x as MetricValue;
  if (x === null || typeof x !== 'object' || typeof x.type !== 'string') throw new DecodeError('bad metric value');
  const ts = m.ts as [number, number] | undefined;
  return new MetricEvent(
    m.n,
    m.k,
    x,
    meta,
    typeof m.ns === 'string' ? m.ns : undefined,
    (m.g as Tags | undefined) ?? undefined,
    Array.isArray(ts) ? new Timestamp(ts[0], ts[1]) : undefined,
    typeof m.i === 'number' ? m.i : undefined,
  );
}

class JsonRecordBuilder implements RecordBuilder {
  private value: Buffer | undefined = undefined;
  count = 0;
  get bytes(): number {
    return this.value ? this.value.length : 0;
  }
  append(e: Event): void {
    if (this.value) throw new Error('disk_v1 records hold one event');
    this.value = Buffer.from(eventToV1(e), 'utf8');
    this.count = 1;
  }
  undo(): void {
    this.value = undefined;
    this.count = 0;
  }
  seal(): Buffer {
    const v = this.value!;
    this.value = undefined;
    this.count = 0;
    return v;
  }
}

/** `disk_v1`: one JSON event per record. */
export const diskV1Format: RecordFormat = {
  version: 1,
  maxEvents: 1,
  maxBytes: 0,
  createBuilder: () => new JsonRecordBuilder(),
  countOf: (record) => (record.length > 0 ? 1 : 0),
  decode: (record) => [eventFromV1(record.toString('utf8'))],
};
