/** JSON text to values and back: VRL's number kinds, serde_json's error messages, sorted keys on output. */
import { type ObjectValue, type Value, Float, Timestamp } from '../../lib/value.js';
import { VrlRegex } from '../regex.js';
import { VrlError } from '../runtime.js';
import { lossyText } from './bytes.js';

class JsonError extends Error {}

/** serde_json's recursion limit: the 128th nested array or object is an error. */
const RECURSION_LIMIT = 128;

/**
 * Parses JSON into values: `1` an integer, `1.0`/`1e3` floats; errors worded as serde_json's.
 * Without `maxDepth`, nesting as deep as serde_json's recursion limit is an error, as in VRL;
 * with it (1 to 128, parse_json's `max_depth`), containers that deep are kept as their JSON text.
 */
export function parseJsonText(text: string, maxDepth?: number): Value {
  // native JSON.parse when its numbers map back unambiguously: no integral float literal (`1.0`,
  // `1e3`) anywhere in the text; otherwise, and for errors, the exact parser below decides
  if (!AMBIGUOUS_NUMBER.test(text)) {
    let native: unknown;
    try {
      native = JSON.parse(text);
    } catch {
      return parseJsonExact(text, maxDepth);
    }
    const v = fromNative(native, 0, maxDepth ?? RECURSION_LIMIT - 1);
    if (v !== undefined) return v;
  }
  return parseJsonExact(text, maxDepth);
}

// a number token (after `:`, `,`, `[` or at the start) with an exponent or an all-zero fraction;
// the same text inside a string only costs the slower path
const AMBIGUOUS_NUMBER = /(?:^|[:,[])\s*-?\d+(?:\.\d+)?[eE]|(?:^|[:,[])\s*-?\d+\.0+(?![0-9])|__proto__/;

/** Native parse result to a value (non-integers become Float); undefined when the exact parser must decide. */
function fromNative(v: unknown, depth: number, maxDepth: number): Value | undefined {
  if (typeof v === 'number') {
    if (Number.isInteger(v)) return Number.isSafeInteger(v) ? v : undefined;
    return new Float(v);
  }
  if (v === null || typeof v !== 'object') return v as Value;
  if (depth >= maxDepth) return undefined;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i] as unknown;
      if (x !== null && (typeof x === 'object' || typeof x === 'number')) {
        const c = fromNative(x, depth + 1, maxDepth);
        if (c === undefined) return undefined;
        v[i] = c;
      }
    }
    return v as Value[];
  }
  const o = v as { [k: string]: unknown };
  for (const k in o) {
    const x = o[k];
    if (x !== null && (typeof x === 'object' || typeof x === 'number')) {
      const c = fromNative(x, depth + 1, maxDepth);
      if (c === undefined) return undefined;
      o[k] = c;
    }
  }
  return o as ObjectValue;
}

/** The character-by-character JSON parser: exact numbers kinds, VRL's error messages; `maxDepth` as for {@link parseJsonText}. */
export function parseJsonExact(text: string, maxDepth?: number): Value {
  let i = 0;
  const s = text;
  const pos = (at: number): string => {
    let line = 1;
    let col = 0;
    for (let k = 0; k < at && k < s.length; k++) {
      if (s[k] === '\n') {
        line++;
        col = 0;
      } else col++;
    }
    return `at line ${line} column ${Math.max(col, 0) + (at < s.length ? 1 : 0)}`;
  };
  const err = (m: string, at = i): never => {
    throw new JsonError(`${m} ${pos(at)}`);
  };
  const ws = (): void => {
    while (i < s.length) {
      const c = s.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else break;
    }
  };
  const val = (depth: number): Value => {
    ws();
    if (i >= s.length) err('EOF while parsing a value', s.length);
    const c = s[i];
    if (c === '{') {
      if (depth >= limit) return tooDeep();
      i++;
      const o: ObjectValue = {};
      ws();
      if (s[i] === '}') {
        i++;
        return o;
      }
      for (;;) {
        ws();
        if (i >= s.length) err('EOF while parsing an object', s.length);
        if (s[i] !== '"') err('key must be a string');
        const k = string();
        ws();
        if (i >= s.length) err('EOF while parsing an object', s.length);
        if (s[i] !== ':') err('expected `:`');
        i++;
        const item = val(depth + 1);
        // `__proto__` is an ordinary key in JSON: define it rather than set the prototype
        if (k === '__proto__') Object.defineProperty(o, k, { value: item, enumerable: true, writable: true, configurable: true });
        else o[k] = item;
        ws();
        if (i >= s.length) err('EOF while parsing an object', s.length);
        if (s[i] === ',') {
          i++;
          ws();
          if (s[i] === '}') err('trailing comma');
          continue;
        }
        if (s[i] === '}') {
          i++;
          return o;
        }
        err('expected `,` or `}`');
      }
    }
    if (c === '[') {
      if (depth >= limit) return tooDeep();
      i++;
      const a: Value[] = [];
      ws();
      if (s[i] === ']') {
        i++;
        return a;
      }
      for (;;) {
        a.push(val(depth + 1));
        ws();
        if (i >= s.length) err('EOF while parsing a list', s.length);
        if (s[i] === ',') {
          i++;
          ws();
          if (s[i] === ']') err('trailing comma');
          continue;
        }
        if (s[i] === ']') {
          i++;
          return a;
        }
        err('expected `,` or `]`');
      }
    }
    if (c === '"') return string();
    if (s.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (s.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (s.startsWith('null', i)) {
      i += 4;
      return null;
    }
    const m = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/.exec(s.slice(i, i + 400));
    if (!m) err(c !== undefined && /[a-zA-Z]/.test(c) ? 'expected ident' : 'expected value', i + 1);
    i += m![0].length;
    if (m![1] || m![2]) return new Float(Number(m![0]));
    const n = Number(m![0]);
    if (!Number.isSafeInteger(n)) {
      const b = BigInt(m![0]);
      if (b > 9223372036854775807n || b < -9223372036854775808n) return new Float(n);
    }
    return n;
  };
  const limit = maxDepth ?? RECURSION_LIMIT - 1;
  const tooDeep = (): Value => (maxDepth === undefined ? err('recursion limit exceeded', i) : skipRaw());
  const skipRaw = (): Value => {
    // beyond max_depth: the raw JSON text is kept as a string
    const start = i;
    let depth = 0;
    let inStr = false;
    for (; i < s.length; i++) {
      const ch = s[i];
      if (inStr) {
        if (ch === '\\') i++;
        else if (ch === '"') inStr = false;
      } else if (ch === '"') inStr = true;
      else if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') {
        depth--;
        if (depth === 0) {
          i++;
          break;
        }
      }
    }
    return s.slice(start, i);
  };
  const string = (): string => {
    const start = i;
    i++;
    let out = '';
    let seg = i;
    for (;;) {
      if (i >= s.length) err('EOF while parsing a string', s.length);
      const ch = s.charCodeAt(i);
      if (ch === 34) {
        out += s.slice(seg, i);
        i++;
        return out;
      }
      if (ch === 92) {
        out += s.slice(seg, i);
        const e = s[i + 1];
        const map: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e === 'u') {
          const hex = s.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) err('invalid escape', i + 2);
          out += String.fromCharCode(parseInt(hex, 16));
          i += 6;
        } else if (e !== undefined && map[e] !== undefined) {
          out += map[e];
          i += 2;
        } else err('invalid escape', i + 2);
        seg = i;
        continue;
      }
      if (ch < 32) err('control character (\\u0000-\\u001F) found while parsing a string', i + 1);
      i++;
    }
    void start;
  };
  try {
    const v = val(0);
    ws();
    if (i < s.length) err('trailing characters', i + 1);
    return v;
  } catch (e) {
    if (e instanceof JsonError) throw new VrlError(`unable to parse json: ${e.message}`);
    throw e;
  }
}

function encodeFloat(n: number): string {
  if (!Number.isFinite(n)) return 'null';
  if (Number.isInteger(n) && Math.abs(n) < 1e16) return n.toFixed(1);
  return String(n);
}

/** Serializes a value as VRL's encode_json does (object keys sorted, floats keep `.0`). */
export function encodeJson(v: Value, pretty = false, indent = ''): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(lossyText(v));
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Float) return encodeFloat(v.value);
  if (v instanceof Timestamp) return JSON.stringify(v.toString());
  if (v instanceof RegExp) return JSON.stringify(v instanceof VrlRegex ? v.pattern : v.source);
  const inner = indent + '  ';
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    if (!pretty) return '[' + v.map((x) => encodeJson(x)).join(',') + ']';
    return '[\n' + v.map((x) => inner + encodeJson(x, true, inner)).join(',\n') + '\n' + indent + ']';
  }
  const keys = Object.keys(v).sort();
  if (keys.length === 0) return '{}';
  if (!pretty) return '{' + keys.map((k) => JSON.stringify(k) + ':' + encodeJson(v[k]!)).join(',') + '}';
  return '{\n' + keys.map((k) => inner + JSON.stringify(k) + ': ' + encodeJson(v[k]!, true, inner)).join(',\n') + '\n' + indent + '}';
}
