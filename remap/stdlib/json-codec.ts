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
// the same text inside a string only costs the slower path; so do surrogate escapes, which
// serde_json checks for pairing where JSON.parse does not
const AMBIGUOUS_NUMBER = /(?:^|[:,[])\s*-?\d+(?:\.\d+)?[eE]|(?:^|[:,[])\s*-?\d+\.0+(?![0-9])|__proto__|\\u[dD][89a-fA-F]/;

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

/** serde_json's position of a byte index: line from 1, column = bytes since the line's start. */
function positionOf(s: string, at: number): string {
  const lineStart = at === 0 ? 0 : s.lastIndexOf('\n', at - 1) + 1;
  let line = 1;
  for (let k = s.indexOf('\n'); k >= 0 && k < lineStart; k = s.indexOf('\n', k + 1)) line++;
  return `at line ${line} column ${utf8Length(s, lineStart, at)}`;
}

function utf8Length(s: string, from: number, to: number): number {
  let n = 0;
  for (let k = from; k < to; k++) {
    const c = s.charCodeAt(k);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? (k++, 4) : 3;
  }
  return n;
}

const HEX4 = /^[0-9a-fA-F]{4}$/;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * The character-by-character JSON parser: exact number kinds; errors as serde_json words and places
 * them (a consumed byte's error at the index after it, a peeked byte's at the index after the
 * peek); `maxDepth` as for {@link parseJsonText}.
 */
export function parseJsonExact(text: string, maxDepth?: number): Value {
  let i = 0;
  // a leading byte order mark is skipped, as VRL does; positions count from after it
  const s = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const len = s.length;
  const errAt = (m: string, at: number): never => {
    throw new JsonError(`${m} ${positionOf(s, at)}`);
  };
  /** Error caused by a byte already consumed. */
  const err = (m: string): never => errAt(m, i);
  /** Error caused by the byte at `i`, only peeked. */
  const peekErr = (m: string): never => errAt(m, Math.min(len, i + 1));
  const ws = (): void => {
    while (i < len) {
      const c = s.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else break;
    }
  };
  const ident = (rest: string): void => {
    for (const want of rest) {
      if (i >= len) err('EOF while parsing a value');
      if (s[i++] !== want) err('expected ident');
    }
  };
  const isDigitAt = (k: number): boolean => k < len && s.charCodeAt(k) >= 48 && s.charCodeAt(k) <= 57;
  const number = (start: number): Value => {
    if (i >= len) err('EOF while parsing a value');
    const first = s[i++]!;
    if (first === '0') {
      if (isDigitAt(i)) peekErr('invalid number');
    } else if (first >= '1' && first <= '9') {
      while (isDigitAt(i)) i++;
    } else err('invalid number');
    let isFloat = false;
    if (s[i] === '.') {
      isFloat = true;
      i++;
      const digits = i;
      while (isDigitAt(i)) i++;
      if (i === digits) peekErr(i >= len ? 'EOF while parsing a value' : 'invalid number');
    }
    if (s[i] === 'e' || s[i] === 'E') {
      isFloat = true;
      i++;
      if (s[i] === '+' || s[i] === '-') i++;
      if (i >= len) err('EOF while parsing a value');
      if (!isDigitAt(i++)) err('invalid number');
      while (isDigitAt(i)) i++;
    }
    const literal = s.slice(start, i);
    const n = Number(literal);
    if (isFloat) {
      if (!Number.isFinite(n)) err('number out of range');
      return new Float(n);
    }
    if (!Number.isSafeInteger(n)) {
      const b = BigInt(literal);
      if (b > 9223372036854775807n || b < -9223372036854775808n) return new Float(n);
    }
    return n;
  };
  const hex4 = (): number => {
    if (i + 4 > len) {
      i = len;
      err('EOF while parsing a string');
    }
    const hex = s.slice(i, i + 4);
    i += 4;
    if (!HEX4.test(hex)) err('invalid escape');
    return parseInt(hex, 16);
  };
  const unicodeEscape = (): string => {
    const n = hex4();
    if (n >= 0xdc00 && n <= 0xdfff) err('lone leading surrogate in hex escape');
    if (n < 0xd800 || n > 0xdbff) return String.fromCharCode(n);
    if (i >= len) err('EOF while parsing a string');
    if (s[i] !== '\\') {
      i++;
      err('unexpected end of hex escape');
    }
    i++;
    if (i >= len) err('EOF while parsing a string');
    if (s[i] !== 'u') {
      i++;
      err('unexpected end of hex escape');
    }
    i++;
    const n2 = hex4();
    if (n2 < 0xdc00 || n2 > 0xdfff) err('lone leading surrogate in hex escape');
    return String.fromCharCode(n, n2);
  };
  /** A string body; `i` is past the opening quote. */
  const string = (): string => {
    let out = '';
    let seg = i;
    for (;;) {
      if (i >= len) err('EOF while parsing a string');
      const ch = s.charCodeAt(i);
      if (ch === 34) {
        out += s.slice(seg, i);
        i++;
        return out;
      }
      if (ch === 92) {
        out += s.slice(seg, i);
        i++;
        if (i >= len) err('EOF while parsing a string');
        const e = s[i++]!;
        if (e === 'u') out += unicodeEscape();
        else if (ESCAPES[e] !== undefined) out += ESCAPES[e];
        else err('invalid escape');
        seg = i;
        continue;
      }
      if (ch < 32) {
        i++;
        err('control character (\\u0000-\\u001F) found while parsing a string');
      }
      i++;
    }
  };
  const val = (depth: number): Value => {
    ws();
    if (i >= len) peekErr('EOF while parsing a value');
    const c = s[i];
    switch (c) {
      case 'n':
        i++;
        ident('ull');
        return null;
      case 't':
        i++;
        ident('rue');
        return true;
      case 'f':
        i++;
        ident('alse');
        return false;
      case '-': {
        const start = i++;
        return number(start);
      }
      case '"':
        i++;
        return string();
      case '[': {
        if (depth >= limit) return tooDeep();
        i++;
        const a: Value[] = [];
        for (let first = true; ; first = false) {
          ws();
          if (i >= len) peekErr('EOF while parsing a list');
          if (s[i] === ']') break;
          if (!first) {
            if (s[i] !== ',') peekErr('expected `,` or `]`');
            i++;
            ws();
            if (i >= len) peekErr('EOF while parsing a value');
            if (s[i] === ']') peekErr('trailing comma');
          }
          a.push(val(depth + 1));
        }
        i++;
        return a;
      }
      case '{': {
        if (depth >= limit) return tooDeep();
        i++;
        const o: ObjectValue = {};
        for (let first = true; ; first = false) {
          ws();
          if (i >= len) peekErr('EOF while parsing an object');
          if (s[i] === '}') break;
          if (!first) {
            if (s[i] !== ',') peekErr('expected `,` or `}`');
            i++;
            ws();
            if (i >= len) peekErr('EOF while parsing a value');
            if (s[i] === '}') peekErr('trailing comma');
          }
          if (s[i] !== '"') peekErr('key must be a string');
          i++;
          const k = string();
          ws();
          if (i >= len) peekErr('EOF while parsing an object');
          if (s[i] !== ':') peekErr('expected `:`');
          i++;
          const item = val(depth + 1);
          // `__proto__` is an ordinary key in JSON: define it rather than set the prototype
          if (k === '__proto__') Object.defineProperty(o, k, { value: item, enumerable: true, writable: true, configurable: true });
          else o[k] = item;
        }
        i++;
        return o;
      }
      default:
        if (c! >= '0' && c! <= '9') return number(i);
        return peekErr('expected value');
    }
  };
  const limit = maxDepth ?? RECURSION_LIMIT - 1;
  const tooDeep = (): Value => (maxDepth === undefined ? peekErr('recursion limit exceeded') : skipRaw());
  const skipRaw = (): Value => {
    // beyond max_depth: the raw JSON text is kept as a string
    const start = i;
    let depth = 0;
    let inStr = false;
    for (; i < len; i++) {
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
  try {
    const v = val(0);
    ws();
    if (i < len) peekErr('trailing characters');
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
