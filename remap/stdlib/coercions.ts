/** Coercions: to_string, to_int, to_float, to_bool, to_regex, and the strict text parsers behind them. */
import { type Value, Float, Timestamp, formatFloat } from '../../lib/value.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { compileRegex } from '../regex.js';
import { fail } from './errors.js';

/** The text form `to_string` gives scalars; undefined for containers and regexes. */
export function scalarToString(v: Value): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v === null) return '';
  if (v instanceof Float) return formatFloat(v.value);
  if (v instanceof Timestamp) return v.toString();
  return undefined;
}

const toString = defineFunction({
  name: 'to_string',
  description: 'Converts a value to a string.',
  params: [{ name: 'value', kind: K.ALL, required: true }],
  fallible: (args) => args[0]!.kind.has(K.ARRAY | K.OBJECT | K.REGEX),
  returns: K.K_BYTES,
  call: ([v]) => scalarToString(v!) ?? fail(`unable to coerce ${K.valueKindName(v!)} into string`),
});

/** Integer parse with Rust's `i64::from_str` messages. */
export function parseIntStrict(s: string): number {
  if (s === '') fail(`Invalid integer "${s}": cannot parse integer from empty string`);
  if (!/^[+-]?\d+$/.test(s)) fail(`Invalid integer "${s}": invalid digit found in string`);
  const b = BigInt(s);
  if (b > 9223372036854775807n) fail(`Invalid integer "${s}": number too large to fit in target type`);
  if (b < -9223372036854775808n) fail(`Invalid integer "${s}": number too small to fit in target type`);
  return Number(s);
}

/** Float parse with Rust's `f64::from_str` grammar. */
export function parseFloatStrict(s: string): number {
  const t = s.toLowerCase();
  if (/^[+-]?(inf|infinity)$/.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/.test(t)) return NaN;
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/.test(t)) fail(`Invalid floating point number "${s}": invalid float literal`);
  return Number(s);
}

const toInt = defineFunction({
  name: 'to_int',
  description: 'Converts a value to an integer.',
  params: [{ name: 'value', kind: K.ALL, required: true }],
  fallible: (args) => args[0]!.kind.has(K.BYTES | K.ARRAY | K.OBJECT | K.REGEX),
  returns: K.K_INTEGER,
  call: ([v]) => {
    if (typeof v === 'number') return v;
    if (v instanceof Float) return Math.trunc(v.value);
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (v === null || v === undefined) return 0;
    if (v instanceof Timestamp) return Math.floor(v.ms / 1000);
    if (typeof v === 'string') return parseIntStrict(v);
    return fail(`unable to coerce ${K.valueKindName(v)} into integer`);
  },
});

const toFloat = defineFunction({
  name: 'to_float',
  description: 'Converts a value to a float.',
  params: [{ name: 'value', kind: K.ALL, required: true }],
  fallible: (args) => args[0]!.kind.has(K.BYTES | K.ARRAY | K.OBJECT | K.REGEX),
  returns: K.K_FLOAT,
  call: ([v]) => {
    if (v instanceof Float) return v;
    if (typeof v === 'number') return new Float(v);
    if (typeof v === 'boolean') return new Float(v ? 1 : 0);
    if (v === null || v === undefined) return new Float(0);
    if (v instanceof Timestamp) return new Float(Number(v.toNanos()) / 1e9);
    if (typeof v === 'string') return new Float(parseFloatStrict(v));
    return fail(`unable to coerce ${K.valueKindName(v)} into float`);
  },
});

/** Boolean words accepted by to_bool and conversions. */
export function parseBoolWord(s: string): boolean {
  switch (s.toLowerCase()) {
    case 'true':
    case 't':
    case 'yes':
    case 'y':
    case 'on':
    case '1':
      return true;
    case 'false':
    case 'f':
    case 'no':
    case 'n':
    case 'off':
    case '0':
      return false;
  }
  return fail(`Invalid boolean value "${s}"`);
}

const toBool = defineFunction({
  name: 'to_bool',
  description: 'Converts a value to a boolean.',
  params: [{ name: 'value', kind: K.ALL, required: true }],
  fallible: (args) => args[0]!.kind.has(K.BYTES | K.ARRAY | K.OBJECT | K.REGEX | K.TIMESTAMP),
  returns: K.K_BOOLEAN,
  call: ([v]) => {
    if (typeof v === 'boolean') return v;
    if (typeof v === 'number') return v !== 0;
    if (v instanceof Float) return v.value !== 0;
    if (v === null || v === undefined) return false;
    if (typeof v === 'string') return parseBoolWord(v);
    return fail(`unable to coerce ${K.valueKindName(v)} into boolean`);
  },
});

const toRegex = defineFunction({
  name: 'to_regex',
  description: 'Compiles a string into a regex.',
  params: [{ name: 'value', kind: K.BYTES, required: true }],
  fallible: true,
  returns: K.K_REGEX,
  call: ([v]) => {
    try {
      return compileRegex(v as string);
    } catch (e) {
      return fail(`could not create regex from string: ${(e as Error).message}`);
    }
  },
});

/** The functions of this file, for the stdlib list. */
export const coercionFunctions: readonly FnDef[] = [toString, toInt, toFloat, toBool, toRegex];
