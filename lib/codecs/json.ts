/**
 * JSON text of values with a chosen timestamp format, by a walk over the value: `JSON.stringify`
 * would call `Timestamp#toJSON` per timestamp (its slow path), and no replacer could see a
 * timestamp before its `toJSON` ran.
 */
import { Float, Timestamp, type Value } from '../value.js';

/** `encoding.timestamp_format` values (rfc3339 and unix, plus the unix_* variants as Vector has them). */
export const TIMESTAMP_FORMATS = ['rfc3339', 'unix', 'unix_ms', 'unix_us', 'unix_ns', 'unix_float'] as const;
/** One timestamp_format value. */
export type TimestampFormat = (typeof TIMESTAMP_FORMATS)[number];

/** A timestamp as a JSON token: quoted RFC 3339 or a bare number (unix_ns keeps all 19 digits). */
export function timestampToken(ts: Timestamp, format: TimestampFormat): string {
  switch (format) {
    case 'rfc3339':
      return '"' + ts.toString() + '"';
    case 'unix':
      return String(Math.floor(ts.ms / 1000));
    case 'unix_ms':
      return String(ts.ms);
    case 'unix_us':
      return String(ts.ms * 1000 + Math.floor(ts.ns / 1000));
    case 'unix_ns':
      return ts.toNanos().toString();
    case 'unix_float':
      return String(ts.toSeconds());
  }
}

/** A timestamp converted to a value in the given format (for text codecs). */
export function timestampValue(ts: Timestamp, format: TimestampFormat): Value {
  switch (format) {
    case 'rfc3339':
      return ts;
    case 'unix':
      return Math.floor(ts.ms / 1000);
    case 'unix_ms':
      return ts.ms;
    case 'unix_us':
      return ts.ms * 1000 + Math.floor(ts.ns / 1000);
    case 'unix_ns':
      // beyond 2^53: kept exact as its decimal text
      return ts.toNanos().toString();
    case 'unix_float':
      return new Float(ts.toSeconds());
  }
}

/** Serializes a value as JSON; non-finite floats become null, regexes their source string. */
export function valueToJSONText(v: Value, format: TimestampFormat = 'rfc3339'): string {
  return format === 'rfc3339' ? writeDefault(v) : writeJSONValue(v, format);
}

/**
 * JSON text of field names, by name: a name is escaped once, not once per event. Bounded, since
 * names can come from the data (a map of user ids); past the bound names are escaped each time.
 */
const keyTexts = new Map<string, string>();
const KEY_TEXTS_MAX = 4096;
function keyText(k: string): string {
  let t = keyTexts.get(k);
  if (t === undefined) {
    t = JSON.stringify(k) + ':';
    if (keyTexts.size < KEY_TEXTS_MAX) keyTexts.set(k, t);
  }
  return t;
}

/**
 * The default form (RFC 3339 timestamps) by a walk: the same text `JSON.stringify` gives with the
 * values' `toJSON`, without its slow path (a `toJSON` call per timestamp) and with regexes as their
 * source. Field names come from {@link keyText}.
 */
function writeDefault(v: Value): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object':
      break;
    default:
      // undefined inside an array, as JSON.stringify writes it
      return 'null';
  }
  if (v instanceof Timestamp) return '"' + v.toString() + '"';
  if (v instanceof Float) return plainFloat(v.value);
  if (v instanceof RegExp) return JSON.stringify(v.source);
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(v);
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += (i ? ',' : '') + writeDefault(v[i] as Value);
    return out + ']';
  }
  let out = '{';
  for (const k in v) {
    const x = v[k];
    if (x === undefined) continue;
    out += (out.length > 1 ? ',' : '') + keyText(k) + writeDefault(x);
  }
  return out + '}';
}

/** A finite float as JSON's shortest number text; non-finite floats are null. */
const plainFloat = (n: number): string => (Number.isFinite(n) ? String(n) : 'null');

/** JSON text of a value by a walk: timestamps in `format`, floats through `float`, regexes as their source. */
export function writeJSONValue(v: Value, format: TimestampFormat, float: (n: number) => string = plainFloat): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (v instanceof Float) return float(v.value);
  if (v instanceof Timestamp) return timestampToken(v, format);
  if (v instanceof RegExp) return JSON.stringify(v.source);
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += (i ? ',' : '') + writeJSONValue(v[i] as Value, format, float);
    return out + ']';
  }
  let out = '{';
  let first = true;
  for (const k in v) {
    const x = v[k];
    if (x === undefined) continue;
    out += (first ? '' : ',') + JSON.stringify(k) + ':' + writeJSONValue(x, format, float);
    first = false;
  }
  return out + '}';
}

/**
 * Compact JSON text re-laid out with two-space indentation and `": "` after keys (Vector's
 * `encoding.json.pretty`); empty objects and arrays stay `{}` and `[]`. Works on the text, so
 * numbers keep every digit the compact form had.
 */
export function prettyJsonText(compact: string): string {
  let out = '';
  let depth = 0;
  const newline = () => '\n' + '  '.repeat(depth);
  for (let i = 0; i < compact.length; i++) {
    const ch = compact[i]!;
    switch (ch) {
      case '"': {
        // copy the whole string, escapes included
        let j = i + 1;
        while (j < compact.length && compact[j] !== '"') j += compact[j] === '\\' ? 2 : 1;
        out += compact.slice(i, j + 1);
        i = j;
        break;
      }
      case '{':
      case '[': {
        const close = ch === '{' ? '}' : ']';
        if (compact[i + 1] === close) {
          out += ch + close;
          i++;
        } else {
          depth++;
          out += ch + newline();
        }
        break;
      }
      case '}':
      case ']':
        depth--;
        out += newline() + ch;
        break;
      case ',':
        out += ',' + newline();
        break;
      case ':':
        out += ': ';
        break;
      default:
        out += ch;
    }
  }
  return out;
}
