/** Type functions: type_def, assertions, type guards (`string!`), is_* tests and to_* coercions. */
import { type Value, Float, Timestamp, isObject, valueEquals } from '../../lib/value.js';
import { type ArgInfo, type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { compileRegex } from '../regex.js';
import { displayValue } from '../../lib/value-display.js';
import { fail, scalarToString } from './util.js';

const only = (bits: number) => (args: readonly ArgInfo[]) => !args[0]!.kind.isOnly(bits);

const typeDef = defineFunction({
  name: 'type_def',
  params: [{ name: 'value', kind: K.ALL, required: true }],
  returns: K.ANY,
  noEval: true,
  prepare: (args) => K.kindDebug(args[0]!.kind, args[0]!.fallible),
  call: (_a, env) => env.prepared as Value,
});

const assert = defineFunction({
  name: 'assert',
  params: [
    { name: 'condition', kind: K.BOOLEAN, required: true },
    { name: 'message', kind: K.BYTES },
  ],
  fallible: true,
  returns: K.K_BOOLEAN,
  call: ([c, m]) => {
    if (c === true) return true;
    return fail(typeof m === 'string' ? m : 'assertion failed');
  },
});

const assertEq = defineFunction({
  name: 'assert_eq',
  params: [
    { name: 'left', kind: K.ANY_VALUE, required: true },
    { name: 'right', kind: K.ANY_VALUE, required: true },
    { name: 'message', kind: K.BYTES },
  ],
  fallible: true,
  returns: K.K_BOOLEAN,
  call: ([l, r, m]) => {
    if (valueEquals(l!, r!)) return true;
    return fail(typeof m === 'string' ? m : `assertion failed: ${displayValue(l!)} == ${displayValue(r!)}`);
  },
});

function guard(name: string, bits: number, what: string, narrow: (k: K.Kind) => K.Kind): FnDef {
  return defineFunction({
    name,
    params: [{ name: 'value', kind: K.ALL, required: true }],
    fallible: only(bits),
    returns: (args) => narrow(args[0]!.kind),
    call: ([v]) => ((K.kindOfValue(v!).bits & bits) !== 0 ? v! : fail(`expected ${what}, got ${K.valueKindName(v!)}`)),
  });
}

const narrowTo = (bits: number) => (k: K.Kind) => (k.has(bits) ? new K.Kind(bits, k.fields, k.fieldsUnknown, k.items, k.itemsUnknown) : K.k(bits));

const guards = [
  guard('string', K.BYTES, 'string', () => K.K_BYTES),
  guard('int', K.INTEGER, 'integer', () => K.K_INTEGER),
  guard('float', K.FLOAT, 'float', () => K.K_FLOAT),
  guard('bool', K.BOOLEAN, 'boolean', () => K.K_BOOLEAN),
  guard('timestamp', K.TIMESTAMP, 'timestamp', () => K.K_TIMESTAMP),
  guard('object', K.OBJECT, 'object', narrowTo(K.OBJECT)),
  guard('array', K.ARRAY, 'array', narrowTo(K.ARRAY)),
];

function isFn(name: string, test: (v: Value) => boolean): FnDef {
  return defineFunction({ name, params: [{ name: 'value', kind: K.ALL, required: true }], returns: K.K_BOOLEAN, call: ([v]) => test(v!) });
}

const isFns = [
  isFn('is_string', (v) => typeof v === 'string'),
  isFn('is_integer', (v) => typeof v === 'number'),
  isFn('is_float', (v) => v instanceof Float),
  isFn('is_boolean', (v) => typeof v === 'boolean'),
  isFn('is_null', (v) => v === null),
  isFn('is_timestamp', (v) => v instanceof Timestamp),
  isFn('is_regex', (v) => v instanceof RegExp),
  isFn('is_array', (v) => Array.isArray(v)),
  isFn('is_object', (v) => isObject(v)),
  isFn('is_nullish', (v) => v === null || (typeof v === 'string' && (v === '' || v === '-' || /^\s*$/.test(v)))),
  defineFunction({
    name: 'is_json',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'variant', kind: K.BYTES },
    ],
    returns: K.K_BOOLEAN,
    call: ([v, variant]) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(v as string);
      } catch {
        return false;
      }
      switch (variant) {
        case undefined:
        case null:
          return true;
        case 'object':
          return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
        case 'array':
          return Array.isArray(parsed);
        case 'string':
          return typeof parsed === 'string';
        case 'number':
          return typeof parsed === 'number';
        case 'bool':
          return typeof parsed === 'boolean';
        case 'null':
          return parsed === null;
        default:
          return fail('invalid variant');
      }
    },
  }),
  defineFunction({
    name: 'is_empty',
    params: [{ name: 'value', kind: K.BYTES | K.ARRAY | K.OBJECT, required: true }],
    returns: K.K_BOOLEAN,
    call: ([v]) => (typeof v === 'string' ? v.length === 0 : Array.isArray(v) ? v.length === 0 : Object.keys(v as object).length === 0),
  }),
];

const toString = defineFunction({
  name: 'to_string',
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
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(t)) fail(`Invalid floating point number "${s}": invalid float literal`);
  return Number(s);
}

const toInt = defineFunction({
  name: 'to_int',
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

const tagTypesExternally = defineFunction({
  name: 'tag_types_externally',
  params: [{ name: 'value', kind: K.ALL, required: true }],
  returns: K.ANY,
  call: ([v]) => tag(v!),
});

function tag(v: Value): Value {
  if (v === null) return null;
  if (Array.isArray(v)) return v.map(tag);
  if (isObject(v)) {
    const o: { [k: string]: Value } = {};
    for (const k in v) o[k] = tag(v[k]!);
    return o;
  }
  const name = typeof v === 'string' ? 'string' : K.valueKindName(v);
  return { [name]: v };
}

/** The functions of this file, for the stdlib list. */
export const typeFunctions: readonly FnDef[] = [typeDef, assert, assertEq, ...guards, ...isFns, toString, toInt, toFloat, toBool, toRegex, tagTypesExternally];
