/**
 * logfmt text of an object: nested objects and arrays flattened with `.` (`a.b`, `list.0`), keys in
 * sorted order, `true` as a bare key and `false` omitted, values quoted when they hold whitespace,
 * `"` or `=` (Vector's key-value encoder with logfmt delimiters).
 */
import { Float, type ObjectValue, Timestamp, type Value, formatFloat } from '../value.js';
import { type TimestampFormat, timestampValue } from './json.js';

/** Encodes an object as one logfmt line (no trailing newline). */
export function encodeLogfmt(obj: ObjectValue, format: TimestampFormat = 'rfc3339'): string {
  const flat = new Map<string, Value>();
  flatten(obj, '', flat, format);
  const keys = [...flat.keys()].sort();
  let out = '';
  for (const k of keys) {
    const v = flat.get(k)!;
    if (v === false) continue;
    if (out) out += ' ';
    if (v === true) {
      out += quote(k);
      continue;
    }
    out += quote(k) + '=' + quote(scalarText(v));
  }
  return out;
}

function flatten(v: Value, prefix: string, out: Map<string, Value>, format: TimestampFormat): void {
  if (v !== null && typeof v === 'object' && !(v instanceof Float) && !(v instanceof Timestamp) && !(v instanceof RegExp)) {
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) flatten(v[i] as Value, prefix ? `${prefix}.${i}` : String(i), out, format);
    } else {
      for (const k in v) flatten(v[k] as Value, prefix ? `${prefix}.${k}` : k, out, format);
    }
    return;
  }
  out.set(prefix, v instanceof Timestamp ? timestampValue(v, format) : v);
}

function scalarText(v: Value): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return v;
  if (v instanceof Float) return formatFloat(v.value);
  if (v instanceof Timestamp) return v.toString();
  if (v instanceof RegExp) return v.source;
  return String(v);
}

const NEEDS_QUOTE = /[\s"=]/;
const ESCAPE = /[\\"\n]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '"': '\\"', '\n': '\\\\n' };

function quote(s: string): string {
  const escaped = s.replace(ESCAPE, (c) => ESCAPES[c]!);
  return NEEDS_QUOTE.test(s) ? '"' + escaped + '"' : escaped;
}
