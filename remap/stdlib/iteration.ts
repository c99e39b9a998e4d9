/** Functions taking a closure: for_each, map_keys, map_values, filter, replace_with. */
import { type ObjectValue, type Value, isObject } from '../../lib/value.js';
import { type ArgInfo, type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { allMatches, groupInfo } from '../regex.js';
import { optInt, sameContainer } from './args.js';
import { fail } from './errors.js';

const keyKind = (a: ArgInfo): K.Kind =>
  a.kind.isOnly(K.OBJECT) ? K.K_BYTES : a.kind.isOnly(K.ARRAY) ? K.K_INTEGER : K.k(K.BYTES | K.INTEGER);
const valueKind = (a: ArgInfo): K.Kind => K.elementKind(a.kind);

function mapKeysRec(v: Value, f: (k: Value) => Value, recursive: boolean): Value {
  if (Array.isArray(v)) return recursive ? v.map((x) => mapKeysRec(x, f, true)) : v;
  if (!isObject(v)) return v;
  const out: ObjectValue = {};
  for (const k of Object.keys(v).sort()) {
    const nk = f(k);
    if (typeof nk !== 'string') fail(`expected string, got ${K.valueKindName(nk)}`);
    out[nk] = recursive ? mapKeysRec(v[k]!, f, true) : v[k]!;
  }
  return out;
}

function mapValuesRec(v: Value, f: (x: Value) => Value, recursive: boolean): Value {
  if (Array.isArray(v)) return v.map((x) => (recursive && (Array.isArray(x) || isObject(x)) ? f(mapValuesRec(x, f, true)) : f(x)));
  if (isObject(v)) {
    const out: ObjectValue = {};
    for (const k of Object.keys(v).sort()) {
      const x = v[k]!;
      out[k] = recursive && (Array.isArray(x) || isObject(x)) ? f(mapValuesRec(x, f, true)) : f(x);
    }
    return out;
  }
  return v;
}

/** The functions of this file, for the stdlib list. */
export const iterationFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'for_each',
    description: 'Runs the closure for each element of an array or object.',
    params: [{ name: 'value', kind: K.OBJECT | K.ARRAY, required: true }],
    closure: { arity: 2, params: (args) => [keyKind(args[0]!), valueKind(args[0]!)] },
    returns: K.K_NULL,
    call: ([v], env) => {
      const f = env.closure!;
      if (Array.isArray(v)) v.forEach((x, i) => f(i, x));
      else for (const k of Object.keys(v as ObjectValue).sort()) f(k, (v as ObjectValue)[k]!);
      return null;
    },
  }),
  defineFunction({
    name: 'filter',
    description: 'Keeps the elements of an array or object for which the closure returns true.',
    params: [{ name: 'value', kind: K.OBJECT | K.ARRAY, required: true }],
    closure: { arity: 2, params: (args) => [keyKind(args[0]!), valueKind(args[0]!)], returns: K.BOOLEAN },
    returns: (args) => (args[0]!.kind.isOnly(K.ARRAY) ? K.arrayOf(valueKind(args[0]!)) : args[0]!.kind.isOnly(K.OBJECT) ? K.objectOf(valueKind(args[0]!)) : K.k(K.ARRAY | K.OBJECT)),
    call: ([v], env) => {
      const f = env.closure!;
      if (Array.isArray(v)) return v.filter((x, i) => f(i, x) === true);
      const out: ObjectValue = {};
      for (const k of Object.keys(v as ObjectValue).sort()) if (f(k, (v as ObjectValue)[k]!) === true) out[k] = (v as ObjectValue)[k]!;
      return out;
    },
  }),
  defineFunction({
    name: 'map_keys',
    description: 'Renames the keys of an object with the closure.',
    params: [
      { name: 'value', kind: K.OBJECT, required: true },
      { name: 'recursive', kind: K.BOOLEAN },
    ],
    closure: { arity: 1, params: () => [K.K_BYTES], returns: K.BYTES },
    returns: K.K_OBJECT,
    call: ([v, r], env) => mapKeysRec(v!, env.closure!, r === true),
  }),
  defineFunction({
    name: 'map_values',
    description: 'Replaces the values of an object or array with the closure result.',
    params: [
      { name: 'value', kind: K.OBJECT | K.ARRAY, required: true },
      { name: 'recursive', kind: K.BOOLEAN },
    ],
    closure: { arity: 1, params: (args) => [args[1]!.present ? K.ANY.without(K.UNDEFINED) : valueKind(args[0]!)] },
    returns: sameContainer,
    call: ([v, r], env) => mapValuesRec(v!, env.closure!, r === true),
  }),
  defineFunction({
    name: 'replace_with',
    description: 'Replaces regex matches with the closure result.',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'pattern', kind: K.REGEX, required: true },
      { name: 'count', kind: K.INTEGER },
    ],
    closure: {
      arity: 1,
      params: () => [K.objectKind(new Map([['string', K.K_BYTES], ['captures', K.arrayOf(K.k(K.BYTES | K.NULL))]]), K.k(K.BYTES | K.NULL))],
      returns: K.BYTES,
    },
    returns: K.K_BYTES,
    call: ([v, p, c], env) => {
      const s = v as string;
      const re = p as RegExp;
      const { names } = groupInfo(re);
      if (names.includes('string') || names.includes('captures')) return fail('Capture group cannot be named "string" or "captures"');
      let count = optInt(c, -1);
      if (count === 0) return s;
      if (count < 0) count = Infinity;
      let out = '';
      let last = 0;
      let n = 0;
      for (const m of allMatches(re, s)) {
        if (n++ >= count) break;
        const obj: ObjectValue = { string: m[0], captures: m.slice(1).map((x) => x ?? null) };
        if (m.groups) for (const g in m.groups) obj[g] = m.groups[g] ?? null;
        const r = env.closure!(obj);
        if (typeof r !== 'string') return fail(`expected string, got ${K.valueKindName(r)}`);
        out += s.slice(last, m.index) + r;
        last = m.index! + m[0].length;
      }
      return out + s.slice(last);
    },
  }),
];
