/**
 * The value model shared by events, templates, codecs and the remap language.
 *
 * Integers and floats are distinct kinds (spec: integers distinct from floats): an integer is a
 * plain JS number holding an integral value, a float is boxed in {@link Float} so that `1` and
 * `1.0` never collapse. Strings stand for the bytes kind. Timestamps keep nanoseconds.
 */

/** A 64-bit float value; boxed so that integral floats (1.0) stay floats. */
export class Float {
  constructor(readonly value: number) {}
  valueOf(): number {
    return this.value;
  }
  toJSON(): number | null {
    return Number.isFinite(this.value) ? this.value : null;
  }
}

const NS_PER_MS = 1_000_000;

/** A UTC instant with nanosecond precision: whole epoch milliseconds plus 0..999999 ns. */
export class Timestamp {
  /** RFC 3339 text, formatted on first use: sources share one instance across a batch. */
  private text: string | undefined = undefined;
  /** `ms` must be an integer; `ns` the sub-millisecond remainder in [0, 1e6). */
  constructor(
    readonly ms: number,
    readonly ns: number = 0,
  ) {}

  static fromDate(d: Date): Timestamp {
    return new Timestamp(d.getTime(), 0);
  }
  /** From seconds (may be fractional); keeps microsecond precision of the double. */
  static fromSeconds(secs: number): Timestamp {
    const ms = Math.floor(secs * 1000);
    const ns = Math.round((secs * 1000 - ms) * 1000) * 1000;
    return ns >= NS_PER_MS ? new Timestamp(ms + 1, 0) : new Timestamp(ms, ns);
  }
  static fromNanos(nanos: bigint): Timestamp {
    const ms = nanos / 1_000_000n;
    let rem = nanos % 1_000_000n;
    let m = Number(ms);
    if (rem < 0n) {
      rem += 1_000_000n;
      m -= 1;
    }
    return new Timestamp(m, Number(rem));
  }
  static now(): Timestamp {
    return new Timestamp(Date.now(), 0);
  }
  /**
   * Parses RFC 3339 (`2024-05-01T10:00:00.123456Z`, offsets allowed) keeping all fraction digits.
   * Returns undefined when the text is not RFC 3339.
   */
  static parse(text: string): Timestamp | undefined {
    const m = RFC3339.exec(text);
    if (!m) return undefined;
    const [, date, time, frac, zone] = m;
    const base = Date.parse(`${date}T${time}${zone === 'z' ? 'Z' : zone}`);
    if (Number.isNaN(base)) return undefined;
    const digits = (frac ?? '').padEnd(9, '0').slice(0, 9);
    const fracNs = Number(digits);
    const ms = base + Math.floor(fracNs / NS_PER_MS);
    return new Timestamp(ms, fracNs % NS_PER_MS);
  }

  toDate(): Date {
    return new Date(this.ms);
  }
  /** Epoch nanoseconds. */
  toNanos(): bigint {
    return BigInt(this.ms) * 1_000_000n + BigInt(this.ns);
  }
  toSeconds(): number {
    return this.ms / 1000 + this.ns / 1e9;
  }
  equals(other: Timestamp): boolean {
    return this.ms === other.ms && this.ns === other.ns;
  }
  compare(other: Timestamp): number {
    return this.ms - other.ms || this.ns - other.ns;
  }
  /** RFC 3339 UTC with `Z` and 0, 3, 6 or 9 fraction digits: as few as represent the value. */
  toString(): string {
    return (this.text ??= this.format());
  }
  private format(): string {
    const iso = new Date(this.ms).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
    const msPart = this.ms - Math.floor(this.ms / 1000) * 1000;
    if (this.ns === 0) {
      if (msPart === 0) return iso.slice(0, 19) + 'Z';
      return iso;
    }
    const micro = this.ns % 1000 === 0;
    const frac = String(msPart * NS_PER_MS + this.ns).padStart(9, '0');
    return iso.slice(0, 19) + '.' + (micro ? frac.slice(0, 6) : frac) + 'Z';
  }
  toJSON(): string {
    return this.toString();
  }
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

/** A value held by an event field or produced by remap. */
export type Value = null | boolean | number | Float | string | Timestamp | RegExp | Value[] | ObjectValue;
/** An object value: plain prototype-less-agnostic record of values. */
export interface ObjectValue {
  [key: string]: Value;
}

/** Kind names as the remap language and error messages speak of them. */
export type Kind = 'null' | 'boolean' | 'integer' | 'float' | 'bytes' | 'timestamp' | 'regex' | 'array' | 'object';

/** The kind of a value; `undefined` (absent field) is not a value. */
export function kindOf(v: Value): Kind {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return 'bytes';
    case 'number':
      return 'integer';
    case 'boolean':
      return 'boolean';
  }
  if (v instanceof Float) return 'float';
  if (v instanceof Timestamp) return 'timestamp';
  if (v instanceof RegExp) return 'regex';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

export function isObject(v: Value | undefined): v is ObjectValue {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Float) && !(v instanceof Timestamp) && !(v instanceof RegExp);
}

/** Converts parsed JSON (numbers untyped) into values: non-integral numbers become floats. */
export function fromJSON(j: unknown): Value {
  if (j === null || j === undefined) return null;
  switch (typeof j) {
    case 'string':
    case 'boolean':
      return j;
    case 'number':
      return Number.isInteger(j) ? j : new Float(j);
    case 'object': {
      if (Array.isArray(j)) return j.map(fromJSON);
      const out: ObjectValue = {};
      for (const k in j as Record<string, unknown>) out[k] = fromJSON((j as Record<string, unknown>)[k]);
      return out;
    }
    default:
      return null;
  }
}

/** Converts a value into plain JSON data (timestamps to RFC 3339 strings, regexes to source). */
export function toJSON(v: Value): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Float) return v.toJSON();
  if (v instanceof Timestamp) return v.toString();
  if (v instanceof RegExp) return v.source;
  if (Array.isArray(v)) return v.map(toJSON);
  const out: Record<string, unknown> = {};
  for (const k in v) out[k] = toJSON(v[k] as Value);
  return out;
}

/** Deep copy; timestamps, floats and regexes are immutable and shared. */
export function cloneValue(v: Value): Value {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(cloneValue);
  if (v instanceof Float || v instanceof Timestamp || v instanceof RegExp) return v;
  const out: ObjectValue = {};
  for (const k in v) out[k] = cloneValue(v[k] as Value);
  return out;
}

/** Structural equality; an integer and a float of the same number are not equal. */
export function valueEquals(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (a instanceof Float) return b instanceof Float && (a.value === b.value || (Number.isNaN(a.value) && Number.isNaN(b.value)));
  if (a instanceof Timestamp) return b instanceof Timestamp && a.equals(b);
  if (a instanceof RegExp) return b instanceof RegExp && a.source === b.source && a.flags === b.flags;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!valueEquals(a[i] as Value, b[i] as Value)) return false;
    return true;
  }
  if (Array.isArray(b) || b instanceof Float || b instanceof Timestamp || b instanceof RegExp) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!(k in b) || !valueEquals(a[k] as Value, b[k] as Value)) return false;
  }
  return true;
}

/** Text form used by templates and the text codec: strings as is, others as JSON. */
export function valueToString(v: Value): string {
  if (typeof v === 'string') return v;
  if (v === null) return '';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Float) return formatFloat(v.value);
  if (v instanceof Timestamp) return v.toString();
  if (v instanceof RegExp) return v.source;
  return JSON.stringify(toJSON(v));
}

/** Formats a float as Vector does: integral floats keep no fraction in text (`1` not `1.0`). */
export function formatFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return 'inf';
  if (n === -Infinity) return '-inf';
  return String(n);
}

/**
 * Approximate in-memory size in bytes, as Vector's `size_of` used for buffer and batch
 * accounting: strings by length, scalars by 8, containers add their keys.
 */
export function sizeOfValue(v: Value): number {
  if (typeof v === 'string') return v.length;
  if (v === null || typeof v !== 'object') return 8;
  if (v instanceof Float || v instanceof Timestamp) return 8;
  if (v instanceof RegExp) return v.source.length;
  let n = 0;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) n += sizeOfValue(v[i] as Value);
    return n;
  }
  for (const k in v) n += k.length + sizeOfValue(v[k] as Value);
  return n;
}
