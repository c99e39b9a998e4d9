/** Key/value text: parse_key_value and parse_logfmt, encode_key_value and encode_logfmt. */
import { type ObjectValue, type Value, isObject } from '../../lib/value.js';
import { type FnDef, FunctionCompileError, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { optStr } from './args.js';
import { scalarToString } from './coercions.js';
import { fail } from './errors.js';
import { encodeJson } from './json-codec.js';

interface Cursor {
  s: string;
  i: number;
}

const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t';

function skipSpaces(c: Cursor): void {
  while (isSpace(c.s[c.i])) c.i++;
}

/** Field delimiter at the cursor (a run of spaces for " "); returns its length, 0 if none. */
function fieldDelimAt(c: Cursor, fd: string, at = c.i): number {
  const s = c.s;
  if (fd === ' ') {
    let j = at;
    while (s.startsWith(' ', j)) j++;
    return j - at;
  }
  let j = at;
  while (s[j] === ' ') j++;
  return s.startsWith(fd, j) ? j - at + fd.length : 0;
}

function unescapeQuoted(raw: string): string {
  return raw.replace(/\\(["n\\])/g, (_m, ch: string) => (ch === 'n' ? '\n' : ch));
}

/** A quoted token followed by `term` (or end); undefined when the cursor is not at one. */
function quoted(c: Cursor, q: string, term: string, fd: string): string | undefined {
  const s = c.s;
  if (s[c.i] !== q) return undefined;
  let j = c.i + 1;
  while (j < s.length && s[j] !== q) j += s[j] === '\\' ? 2 : 1;
  if (j >= s.length) return undefined;
  const end = j + 1;
  let k = end;
  // must be followed by the terminator, a field delimiter or the end
  const rest = s.slice(k);
  const okTerm = (term === ' ' ? /^ +/.test(rest) : rest.replace(/^ */, '').startsWith(term)) || fieldDelimAt(c, fd, k) > 0 || /^ *$/.test(rest);
  if (!okTerm) return undefined;
  k = end;
  const inner = s.slice(c.i + 1, j);
  c.i = k;
  return unescapeQuoted(inner);
}

function untilDelim(c: Cursor, d: string): string {
  const idx = c.s.indexOf(d, c.i);
  const end = idx < 0 ? c.s.length : idx;
  const out = c.s.slice(c.i, end);
  c.i = end;
  return out.trim();
}

/** Parses `k=v k2="v 2"` lines; duplicate keys collect into arrays. */
function parseKeyValue(input: string, kvd: string, fd: string, lenient: boolean, standalone: boolean): ObjectValue {
  const c: Cursor = { s: input, i: 0 };
  const out: ObjectValue = {};
  const add = (k: string, v: Value): void => {
    if (!Object.prototype.hasOwnProperty.call(out, k)) out[k] = v;
    else {
      const cur = out[k]!;
      out[k] = Array.isArray(cur) ? [...cur, v] : [cur, v];
    }
  };
  let first = true;
  for (;;) {
    if (!first) {
      const n = fieldDelimAt(c, fd);
      if (n === 0) break;
      c.i += n;
    }
    first = false;
    skipSpaces(c);
    if (c.i >= input.length) break;
    // key
    const start = c.i;
    let key = quoted(c, '"', kvd, fd) ?? quoted(c, "'", kvd, fd);
    if (key === undefined) {
      c.i = start;
      const kIdx = input.indexOf(kvd, c.i);
      const fIdx = fd === ' ' ? input.slice(c.i).search(/ /) : input.indexOf(fd, c.i);
      const fAbs = fd === ' ' ? (fIdx < 0 ? -1 : c.i + fIdx) : fIdx;
      if (standalone && (kIdx < 0 || (fAbs >= 0 && fAbs < kIdx))) {
        key = untilDelim(c, fd);
      } else key = untilDelim(c, kvd);
    }
    if (key === '') break;
    // delimiter
    let save = c.i;
    if (lenient) skipSpaces(c);
    if (input.startsWith(kvd, c.i)) {
      c.i += kvd.length;
      if (lenient) skipSpaces(c);
    } else {
      c.i = save;
      if (!standalone) break;
      add(key, true);
      continue;
    }
    save = c.i;
    let value = quoted(c, "'", fd, fd) ?? quoted(c, '"', fd, fd);
    if (value === undefined) {
      c.i = save;
      value = untilDelim(c, fd);
    }
    add(key, value);
  }
  if (input.slice(c.i).trim() !== '') fail('could not parse whole line successfully');
  return out;
}

function kvText(v: Value): string {
  const s = scalarToString(v) ?? encodeJson(v);
  return /[\s"=]/.test(s) || s === '' ? JSON.stringify(s) : s;
}

function flattenFor(v: Value, prefix: string, out: [string, Value][]): void {
  if (isObject(v)) {
    for (const k of Object.keys(v).sort()) flattenFor(v[k]!, prefix ? `${prefix}.${k}` : k, out);
  } else if (Array.isArray(v)) v.forEach((x, i) => flattenFor(x, `${prefix}[${i}]`, out));
  else out.push([prefix, v]);
}

function encodeKv(v: ObjectValue, order: Value[] | undefined, kvd: string, fd: string, flattenBoolean: boolean): string {
  const pairs: [string, Value][] = [];
  flattenFor(v, '', pairs);
  const ordered: [string, Value][] = [];
  if (order) {
    for (const f of order) {
      const idx = pairs.findIndex(([k]) => k === f);
      if (idx >= 0) ordered.push(...pairs.splice(idx, 1));
    }
  }
  ordered.push(...pairs);
  const parts: string[] = [];
  for (const [k, x] of ordered) {
    if (flattenBoolean && typeof x === 'boolean') {
      if (x) parts.push(k);
      continue;
    }
    parts.push(`${k}${kvd}${kvText(x)}`);
  }
  return parts.join(fd);
}
/** The functions of this file, for the stdlib list. */
export const keyValueFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'parse_key_value',
    description: 'Parses key/value pairs with configurable delimiters.',
    fresh: true,
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'key_value_delimiter', kind: K.BYTES },
      { name: 'field_delimiter', kind: K.BYTES },
      { name: 'whitespace', kind: K.BYTES },
      { name: 'accept_standalone_key', kind: K.BOOLEAN },
    ],
    fallible: true,
    prepare: (args) => {
      const w = args[3]!;
      if (w.present && w.isConstant && w.constant !== 'lenient' && w.constant !== 'strict') throw new FunctionCompileError('unknown whitespace variant', 'whitespace');
      return undefined;
    },
    returns: K.objectOf(K.k(K.BOOLEAN | K.BYTES | K.ARRAY)),
    call: ([v, kvd, fd, ws, sa]) =>
      parseKeyValue(v as string, optStr(kvd, '='), optStr(fd, ' '), optStr(ws, 'lenient') !== 'strict', sa !== false),
  }),
  defineFunction({
    name: 'parse_logfmt',
    description: 'Parses logfmt text.',
    fresh: true,
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.objectOf(K.k(K.BOOLEAN | K.BYTES | K.ARRAY)),
    call: ([v]) => parseKeyValue(v as string, '=', ' ', true, true),
  }),
  defineFunction({
    name: 'encode_key_value',
    description: 'Encodes an object as key=value pairs.',
    params: [
      { name: 'value', kind: K.OBJECT, required: true },
      { name: 'fields_ordering', kind: K.ARRAY },
      { name: 'key_value_delimiter', kind: K.BYTES },
      { name: 'field_delimiter', kind: K.BYTES },
      { name: 'flatten_boolean', kind: K.BOOLEAN },
    ],
    fallible: (args) => args[1]!.present,
    returns: K.K_BYTES,
    call: ([v, o, kvd, fd, fb]) => encodeKv(v as ObjectValue, o as Value[] | undefined, optStr(kvd, '='), optStr(fd, ' '), fb === true),
  }),
  defineFunction({
    name: 'encode_logfmt',
    description: 'Encodes an object as logfmt.',
    params: [
      { name: 'value', kind: K.OBJECT, required: true },
      { name: 'fields_ordering', kind: K.ARRAY },
    ],
    fallible: (args) => args[1]!.present,
    returns: K.K_BYTES,
    call: ([v, o]) => encodeKv(v as ObjectValue, o as Value[] | undefined, '=', ' ', false),
  }),
];
