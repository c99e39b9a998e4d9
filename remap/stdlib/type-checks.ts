/** Type functions: type_def, type guards (`string!(…)` & co), is_* tests and tag_types_externally. */
import { type Value, Float, Timestamp, isObject } from '../../lib/value.js';
import { type ArgInfo, type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fail } from './errors.js';

const only = (bits: number) => (args: readonly ArgInfo[]) => !args[0]!.kind.isOnly(bits);

const typeDef = defineFunction({
  name: 'type_def',
  description: 'The type the checker inferred for an expression.',
  params: [{ name: 'value', kind: K.ALL, required: true }],
  returns: K.ANY,
  noEval: true,
  prepare: (args) => K.kindDebug(args[0]!.kind, args[0]!.fallible),
  call: (_a, env) => env.prepared as Value,
});

function guard(name: string, description: string, bits: number, what: string, narrow: (k: K.Kind) => K.Kind): FnDef {
  return defineFunction({
    name,
    description,
    params: [{ name: 'value', kind: K.ALL, required: true }],
    fallible: only(bits),
    returns: (args) => narrow(args[0]!.kind),
    call: ([v]) => ((K.valueBits(v!) & bits) !== 0 ? v! : fail(`expected ${what}, got ${K.valueKindName(v!)}`)),
  });
}

const narrowTo = (bits: number) => (k: K.Kind) => (k.has(bits) ? new K.Kind(bits, k.fields, k.fieldsUnknown, k.items, k.itemsUnknown) : K.k(bits));

const guards = [
  guard('string', 'The value if it is a string; an error otherwise.', K.BYTES, 'string', () => K.K_BYTES),
  guard('int', 'The value if it is an integer; an error otherwise.', K.INTEGER, 'integer', () => K.K_INTEGER),
  guard('float', 'The value if it is a float; an error otherwise.', K.FLOAT, 'float', () => K.K_FLOAT),
  guard('bool', 'The value if it is a boolean; an error otherwise.', K.BOOLEAN, 'boolean', () => K.K_BOOLEAN),
  guard('timestamp', 'The value if it is a timestamp; an error otherwise.', K.TIMESTAMP, 'timestamp', () => K.K_TIMESTAMP),
  guard('object', 'The value if it is an object; an error otherwise.', K.OBJECT, 'object', narrowTo(K.OBJECT)),
  guard('array', 'The value if it is an array; an error otherwise.', K.ARRAY, 'array', narrowTo(K.ARRAY)),
];

function isFn(name: string, description: string, test: (v: Value) => boolean): FnDef {
  return defineFunction({ name, description, params: [{ name: 'value', kind: K.ALL, required: true }], returns: K.K_BOOLEAN, call: ([v]) => test(v!) });
}

const isFns = [
  isFn('is_string', 'Whether the value is a string.', (v) => typeof v === 'string'),
  isFn('is_integer', 'Whether the value is an integer.', (v) => typeof v === 'number'),
  isFn('is_float', 'Whether the value is a float.', (v) => v instanceof Float),
  isFn('is_boolean', 'Whether the value is a boolean.', (v) => typeof v === 'boolean'),
  isFn('is_null', 'Whether the value is null.', (v) => v === null),
  isFn('is_timestamp', 'Whether the value is a timestamp.', (v) => v instanceof Timestamp),
  isFn('is_regex', 'Whether the value is a regex.', (v) => v instanceof RegExp),
  isFn('is_array', 'Whether the value is an array.', (v) => Array.isArray(v)),
  isFn('is_object', 'Whether the value is an object.', (v) => isObject(v)),
  isFn('is_nullish', 'Whether the value is null, empty or only whitespace.', (v) => v === null || (typeof v === 'string' && (v === '' || v === '-' || /^\s*$/.test(v)))),
  defineFunction({
    name: 'is_json',
    description: 'Whether a string is valid JSON, optionally of a given variant.',
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
    description: 'Whether a string, array or object is empty.',
    params: [{ name: 'value', kind: K.BYTES | K.ARRAY | K.OBJECT, required: true }],
    returns: K.K_BOOLEAN,
    call: ([v]) => (typeof v === 'string' ? v.length === 0 : Array.isArray(v) ? v.length === 0 : Object.keys(v as object).length === 0),
  }),
];

const tagTypesExternally = defineFunction({
  name: 'tag_types_externally',
  description: 'Wraps each value in an object naming its type.',
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
export const typeCheckFunctions: readonly FnDef[] = [typeDef, ...guards, ...isFns, tagTypesExternally];
