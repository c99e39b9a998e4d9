/**
 * `native_json`: Vector's JSON form of its events, `{"log":{…}}` or `{"metric":{…}}` (a frame may
 * also hold an array of them). Floats stay floats across the text: they are written with a
 * fraction (`2.0`, as Vector writes f64) and a number literal with a fraction or an exponent
 * reads back as a float, so a value's kind survives a round trip. Timestamps inside log fields
 * are RFC 3339 strings in this format and read back as strings (as in Vector); metric
 * timestamps are typed and read back as timestamps.
 */
import { EventMetadata, type Event, LogEvent, MetricEvent, type MetricKind, type MetricValue, type Tags } from '../event.js';
import { Float, type ObjectValue, Timestamp, type Value } from '../value.js';
import { type TimestampFormat, timestampToken, writeJSONValue } from './json.js';
import { tagFromValues } from './native-tags.js';

// ---------------------------------------------------------------------------------------------
// writing

/** A float as a JSON number token that reads back as a float; non-finite floats are null (as serde_json writes them). */
export function floatToken(n: number): string {
  if (!Number.isFinite(n)) return 'null';
  if (Number.isInteger(n)) {
    if (Object.is(n, -0)) return '-0.0';
    // from 1e21 on, String() already writes an exponent, which reads back as a float
    return Math.abs(n) < 1e21 ? String(n) + '.0' : String(n);
  }
  return String(n);
}

/** `{"log":…}` text of log fields; `format` applies to timestamp values. */
export function nativeJsonLogText(fields: ObjectValue, format: TimestampFormat): string {
  // JSON.stringify is much faster than a walk in JS; it writes every kind the way this format
  // needs except integral floats (it would drop the fraction) and regexes
  if (format === 'rfc3339' && !needsWalk(fields, 0)) return '{"log":' + JSON.stringify(fields) + '}';
  return '{"log":' + writeJSONValue(fields, format, floatToken) + '}';
}

/** Whether a value holds something JSON.stringify would write differently: an integral float, a regex. */
function needsWalk(v: Value, depth: number): boolean {
  if (v === null || typeof v !== 'object') return false;
  if (v instanceof Float) return Number.isInteger(v.value);
  if (v instanceof Timestamp) return false;
  if (v instanceof RegExp) return true;
  // past this depth the walker's own recursion decides (and a hostile depth fails the event)
  if (depth > 64) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (needsWalk(v[i] as Value, depth + 1)) return true;
    return false;
  }
  for (const k in v) if (needsWalk(v[k] as Value, depth + 1)) return true;
  return false;
}

/** `{"metric":…}` text in Vector's shape: full tag sets (a tag of one value as a plain string), f64 fields as floats. */
export function nativeJsonMetricText(m: MetricEvent): string {
  let out = '{"metric":{"name":' + JSON.stringify(m.name);
  if (m.namespace !== undefined) out += ',"namespace":' + JSON.stringify(m.namespace);
  if (m.tags) {
    let tags = '';
    for (const k in m.tags) {
      const t = m.tags[k]!;
      const one = Array.isArray(t) && t.length === 1 ? t[0]! : t;
      tags += (tags ? ',' : '') + JSON.stringify(k) + ':' + JSON.stringify(one);
    }
    if (tags) out += ',"tags":{' + tags + '}';
  }
  if (m.timestamp) out += ',"timestamp":"' + m.timestamp.toString() + '"';
  if (m.intervalMs !== undefined) out += ',"interval_ms":' + m.intervalMs;
  out += ',"kind":"' + m.kind + '",';
  const v = m.value;
  switch (v.type) {
    case 'counter':
    case 'gauge':
      out += '"' + v.type + '":{"value":' + floatToken(v.value) + '}';
      break;
    case 'set':
      out += '"set":{"values":' + JSON.stringify(v.values) + '}';
      break;
    case 'distribution': {
      let s = '';
      for (const x of v.samples) s += (s ? ',' : '') + '{"value":' + floatToken(x.value) + ',"rate":' + x.rate + '}';
      out += '"distribution":{"samples":[' + s + '],"statistic":"' + v.statistic + '"}';
      break;
    }
    case 'aggregated_histogram': {
      let s = '';
      for (const b of v.buckets) s += (s ? ',' : '') + '{"upper_limit":' + limitToken(b.upper_limit) + ',"count":' + b.count + '}';
      out += '"aggregated_histogram":{"buckets":[' + s + '],"count":' + v.count + ',"sum":' + floatToken(v.sum) + '}';
      break;
    }
    case 'aggregated_summary': {
      let s = '';
      for (const q of v.quantiles) s += (s ? ',' : '') + '{"quantile":' + floatToken(q.quantile) + ',"value":' + floatToken(q.value) + '}';
      out += '"aggregated_summary":{"quantiles":[' + s + '],"count":' + v.count + ',"sum":' + floatToken(v.sum) + '}';
      break;
    }
  }
  return out + '}}';
}

/** A histogram bound: Vector writes the non-finite ones as the strings `inf`, `-inf`, `NaN`. */
function limitToken(n: number): string {
  if (Number.isNaN(n)) return '"NaN"';
  if (n === Infinity) return '"inf"';
  if (n === -Infinity) return '"-inf"';
  return floatToken(n);
}

// ---------------------------------------------------------------------------------------------
// parsing

/** Deepest nesting a frame may have (serde_json's default recursion limit). */
const MAX_DEPTH = 128;

/**
 * JSON text to a value; integer literals become integers, literals with a fraction or an
 * exponent become floats. Throws a SyntaxError on invalid JSON or nesting deeper than 128.
 */
export function parseJsonValue(text: string): Value {
  // the native parser when its numbers map back without doubt: no integral float literal
  // (`1.0`, `1e3`) and no `__proto__` key (JSON.parse output is walked by assignment)
  if (!hasAmbiguousNumber(text) && !text.includes('__proto__')) return typed(JSON.parse(text) as unknown, 0);
  return new ExactParser(text).document();
}

// cheap filter: a digit then an all-zero fraction or an exponent, anywhere (also inside strings)
const MAYBE_AMBIGUOUS = /\d(?:\.0+(?![0-9])|[eE][-+]?\d)/;

/**
 * Whether a number literal outside strings has an exponent or an all-zero fraction. The regex
 * runs first (several times faster than the scan); the scan rules out its hits inside strings
 * (versions, addresses such as `10.0.0.1`, hex ids), which would otherwise cost the exact parser.
 */
function hasAmbiguousNumber(s: string): boolean {
  if (!MAYBE_AMBIGUOUS.test(s)) return false;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) {
      // skip a string, escapes included
      for (i++; i < n; i++) {
        const d = s.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c >= 0x30 && c <= 0x39) {
      // a number: digits, then an optional fraction and exponent
      while (i + 1 < n && isDigit(s.charCodeAt(i + 1))) i++;
      let next = s.charCodeAt(i + 1);
      if (next === 0x2e) {
        let j = i + 2;
        let allZero = true;
        for (; j < n && isDigit(s.charCodeAt(j)); j++) if (s.charCodeAt(j) !== 0x30) allZero = false;
        if (allZero && j > i + 2) return true;
        i = j - 1;
        next = s.charCodeAt(j);
      }
      if (next === 0x65 || next === 0x45) return true;
    }
  }
  return false;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** In place: non-integral numbers of a JSON.parse result become floats. */
function typed(v: unknown, depth: number): Value {
  if (typeof v === 'number') return Number.isInteger(v) ? v : new Float(v);
  if (v === null || typeof v !== 'object') return v as Value;
  if (depth >= MAX_DEPTH) throw new SyntaxError(`nesting deeper than ${MAX_DEPTH}`);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i] as unknown;
      if (typeof x === 'object' ? x !== null : typeof x === 'number') v[i] = typed(x, depth + 1);
    }
    return v as Value[];
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (typeof x === 'object' ? x !== null : typeof x === 'number') o[k] = typed(x, depth + 1);
  }
  return o as ObjectValue;
}

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

/** A character-level JSON parser that keeps the kind of each number literal. */
class ExactParser {
  private i = 0;
  constructor(private readonly s: string) {}

  document(): Value {
    const v = this.value(0);
    this.ws();
    if (this.i < this.s.length) this.fail('trailing characters');
    return v;
  }

  private fail(what: string): never {
    throw new SyntaxError(`${what} at position ${this.i}`);
  }

  private ws(): void {
    const s = this.s;
    let c = s.charCodeAt(this.i);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = s.charCodeAt(++this.i);
  }

  private value(depth: number): Value {
    this.ws();
    const s = this.s;
    const c = s[this.i];
    switch (c) {
      case '{':
        return this.object(depth + 1);
      case '[':
        return this.array(depth + 1);
      case '"':
        return this.string();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
    }
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(s);
    if (!m) this.fail(c === undefined ? 'unexpected end of input' : `unexpected character ${JSON.stringify(c)}`);
    this.i += m[0].length;
    const n = Number(m[0]);
    return m[1] !== undefined || m[2] !== undefined ? new Float(n) : n;
  }

  private literal<T extends Value>(word: string, v: T): T {
    if (!this.s.startsWith(word, this.i)) this.fail('invalid literal');
    this.i += word.length;
    return v;
  }

  private string(): string {
    const s = this.s;
    const start = this.i;
    let j = start + 1;
    let escaped = false;
    for (;;) {
      const c = s.charCodeAt(j);
      if (Number.isNaN(c)) {
        this.i = j;
        this.fail('unterminated string');
      }
      if (c === 0x22) break;
      if (c === 0x5c) {
        escaped = true;
        j += 2;
        continue;
      }
      if (c < 0x20) {
        this.i = j;
        this.fail('control character in string');
      }
      j++;
    }
    this.i = j + 1;
    // escapes are rare: the native parser decodes them exactly
    return escaped ? (JSON.parse(s.slice(start, j + 1)) as string) : s.slice(start + 1, j);
  }

  private array(depth: number): Value[] {
    if (depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH}`);
    this.i++;
    const out: Value[] = [];
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth));
      this.ws();
      const c = this.s[this.i++];
      if (c === ']') return out;
      if (c !== ',') {
        this.i--;
        this.fail('expected , or ]');
      }
    }
  }

  private object(depth: number): ObjectValue {
    if (depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH}`);
    this.i++;
    const out: ObjectValue = {};
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail('expected a key');
      const k = this.string();
      this.ws();
      if (this.s[this.i++] !== ':') {
        this.i--;
        this.fail('expected :');
      }
      const v = this.value(depth);
      // an own property even for `__proto__`, as JSON.parse makes it
      if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
      else out[k] = v;
      this.ws();
      const c = this.s[this.i++];
      if (c === '}') return out;
      if (c !== ',') {
        this.i--;
        this.fail('expected , or }');
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// reading events

/** What the reader needs to build events: the source's identity and where a non-object log goes. */
export interface NativeReadOptions {
  readonly sourceId: string;
  readonly sourceType: string;
  /** A log whose root is not an object is kept under this key. */
  readonly messageKey: string;
}

/** Appends the events of one native_json frame to `out`; an empty frame has none. Throws on invalid JSON or shape. */
export function readNativeJson(text: string, opts: NativeReadOptions, out: Event[]): void {
  if (text.length === 0) return;
  const doc = parseJsonValue(text);
  if (Array.isArray(doc)) for (let i = 0; i < doc.length; i++) out.push(eventOf(doc[i]!, opts));
  else out.push(eventOf(doc, opts));
}

function eventOf(doc: Value, opts: NativeReadOptions): Event {
  if (!isPlainObject(doc)) throw new Error(`an event must be an object with one key, log or metric; got ${kindName(doc)}`);
  let key: string | undefined;
  for (const k in doc) {
    if (key !== undefined) throw new Error(`an event has exactly one key, log or metric; got ${key} and ${k}`);
    key = k;
  }
  const body = key === undefined ? undefined : doc[key]!;
  switch (key) {
    case 'log':
      return new LogEvent(isPlainObject(body!) ? body : { [opts.messageKey]: body! }, new EventMetadata(opts.sourceId, opts.sourceType));
    case 'metric':
      return metricOf(body!, opts);
    case 'trace':
      throw new Error('trace events are not supported');
    default:
      throw new Error(`an event must be an object with one key, log or metric; got ${key === undefined ? 'an empty object' : JSON.stringify(key)}`);
  }
}

const METRIC_VALUE_KEYS = ['counter', 'gauge', 'set', 'distribution', 'aggregated_histogram', 'aggregated_summary', 'sketch'] as const;

/** The inverse of {@link nativeJsonMetricText}; also accepts integer literals where Vector writes floats. */
function metricOf(body: Value, opts: NativeReadOptions): MetricEvent {
  if (!isPlainObject(body)) throw new Error(`metric must be an object, got ${kindName(body)}`);
  const name = body.name;
  if (typeof name !== 'string') throw new Error('metric.name must be a string');
  const namespace = body.namespace;
  if (namespace !== undefined && namespace !== null && typeof namespace !== 'string') throw new Error('metric.namespace must be a string');
  const kind = body.kind;
  if (kind !== 'absolute' && kind !== 'incremental') throw new Error('metric.kind must be "absolute" or "incremental"');
  let timestamp: Timestamp | undefined;
  if (body.timestamp !== undefined && body.timestamp !== null) {
    timestamp = typeof body.timestamp === 'string' ? Timestamp.parse(body.timestamp) : undefined;
    if (!timestamp) throw new Error('metric.timestamp must be an RFC 3339 timestamp');
  }
  let intervalMs: number | undefined;
  if (body.interval_ms !== undefined && body.interval_ms !== null) {
    intervalMs = uint(body.interval_ms, 'metric.interval_ms');
    if (intervalMs === 0) throw new Error('metric.interval_ms must be greater than 0');
  }
  let valueKey: (typeof METRIC_VALUE_KEYS)[number] | undefined;
  for (const k of METRIC_VALUE_KEYS) {
    if (body[k] === undefined) continue;
    if (valueKey) throw new Error(`metric has two values, ${valueKey} and ${k}`);
    valueKey = k;
  }
  if (!valueKey) throw new Error(`metric has no value (one of ${METRIC_VALUE_KEYS.join(', ')})`);
  const value = metricValueOf(valueKey, body[valueKey]!);
  return new MetricEvent(name, kind as MetricKind, value, new EventMetadata(opts.sourceId, opts.sourceType), namespace ?? undefined, tagsOf(body.tags), timestamp, intervalMs);
}

function metricValueOf(type: (typeof METRIC_VALUE_KEYS)[number], v: Value): MetricValue {
  const at = 'metric.' + type;
  if (type === 'sketch') throw new Error('sketch metrics are not supported');
  const o = obj(v, at);
  switch (type) {
    case 'counter':
    case 'gauge':
      return { type, value: f64(o.value, at + '.value') };
    case 'set': {
      const values = arr(o.values, at + '.values');
      for (const x of values) if (typeof x !== 'string') throw new Error(at + '.values must hold strings');
      return { type, values: values as string[] };
    }
    case 'distribution': {
      const samples = arr(o.samples, at + '.samples').map((s) => {
        const x = obj(s, at + '.samples[]');
        return { value: f64(x.value, at + '.samples[].value'), rate: uint(x.rate, at + '.samples[].rate') };
      });
      const statistic = o.statistic;
      if (statistic !== 'histogram' && statistic !== 'summary') throw new Error(at + '.statistic must be "histogram" or "summary"');
      return { type, samples, statistic };
    }
    case 'aggregated_histogram': {
      const buckets = arr(o.buckets, at + '.buckets').map((b) => {
        const x = obj(b, at + '.buckets[]');
        return { upper_limit: limitOf(x.upper_limit, at + '.buckets[].upper_limit'), count: uint(x.count, at + '.buckets[].count') };
      });
      return { type, buckets, count: uint(o.count, at + '.count'), sum: f64(o.sum, at + '.sum') };
    }
    case 'aggregated_summary': {
      const quantiles = arr(o.quantiles, at + '.quantiles').map((q) => {
        const x = obj(q, at + '.quantiles[]');
        return { quantile: f64(x.quantile, at + '.quantiles[].quantile'), value: f64(x.value, at + '.quantiles[].value') };
      });
      return { type, quantiles, count: uint(o.count, at + '.count'), sum: f64(o.sum, at + '.sum') };
    }
  }
}

function tagsOf(v: Value | undefined): Tags | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isPlainObject(v)) throw new Error('metric.tags must be an object');
  let tags: Tags | undefined;
  for (const k in v) {
    const t = v[k]!;
    tags ??= {};
    if (t === null || typeof t === 'string') tags[k] = t;
    else if (Array.isArray(t)) {
      for (const x of t) if (x !== null && typeof x !== 'string') throw new Error(`metric.tags.${k} must hold strings or null`);
      tags[k] = tagFromValues(t as (string | null)[]);
    } else throw new Error(`metric.tags.${k} must be a string, null or an array`);
  }
  return tags;
}

/** An f64 field: any number literal; null stands for a non-finite value (serde_json writes those as null). */
function f64(v: Value | undefined, at: string): number {
  if (typeof v === 'number') return v;
  if (v instanceof Float) return v.value;
  if (v === null) return NaN;
  throw new Error(`${at} must be a number`);
}

function limitOf(v: Value | undefined, at: string): number {
  if (v === 'inf') return Infinity;
  if (v === '-inf') return -Infinity;
  if (v === 'NaN') return NaN;
  return f64(v, at);
}

/** An unsigned integer field (u32 / u64). */
function uint(v: Value | undefined, at: string): number {
  const n = typeof v === 'number' ? v : undefined;
  if (n === undefined || n < 0) throw new Error(`${at} must be an unsigned integer`);
  return n;
}

function obj(v: Value | undefined, at: string): ObjectValue {
  if (v === undefined || !isPlainObject(v)) throw new Error(`${at} must be an object`);
  return v;
}

function arr(v: Value | undefined, at: string): Value[] {
  if (!Array.isArray(v)) throw new Error(`${at} must be an array`);
  return v;
}

function isPlainObject(v: Value): v is ObjectValue {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Float) && !(v instanceof Timestamp) && !(v instanceof RegExp);
}

function kindName(v: Value): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (v instanceof Float) return 'a number';
  return typeof v === 'object' ? 'an object' : 'a ' + typeof v;
}
