/** Array and object functions: push/append/pop, merge, compact, flatten/unflatten, keys/values, entries, chunks, zip, tally. */
import { type ObjectValue, type Value, isObject, valueEquals } from '../../lib/value.js';
import { type ArgInfo, type FnDef, FunctionCompileError, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { opt, optStr, req, sameContainer } from './args.js';
import { fromBytes, toBytes } from './bytes.js';
import { fail } from './errors.js';

/** Most items `append` builds (V8 aborts the process at about 2^27). */
const MAX_ARRAY_ITEMS = 2 ** 24;

const arrKind = (a: ArgInfo): K.Kind => (a.kind.has(K.ARRAY) ? new K.Kind(K.ARRAY, undefined, undefined, a.kind.items, a.kind.itemsUnknown) : K.K_ARRAY);

function isEmptyish(v: Value, o: { null: boolean; string: boolean; object: boolean; array: boolean; nullish: boolean }): boolean {
  if (v === null) return o.null;
  if (typeof v === 'string') return (o.string && v === '') || (o.nullish && (v === '-' || /^\s*$/.test(v)));
  if (Array.isArray(v)) return o.array && v.length === 0;
  if (isObject(v)) return o.object && Object.keys(v).length === 0;
  return false;
}

function compactValue(v: Value, recursive: boolean, o: Parameters<typeof isEmptyish>[1]): Value {
  if (Array.isArray(v)) {
    const out: Value[] = [];
    for (const item of v) {
      let x: Value = item;
      if (recursive && (Array.isArray(x) || isObject(x))) x = compactValue(x, true, o);
      if (!isEmptyish(x, o)) out.push(x);
    }
    return out;
  }
  if (isObject(v)) {
    const out: ObjectValue = {};
    for (const k in v) {
      let x: Value = v[k]!;
      if (recursive && (Array.isArray(x) || isObject(x))) x = compactValue(x, true, o);
      if (!isEmptyish(x, o)) out[k] = x;
    }
    return out;
  }
  return v;
}

function flattenObject(v: ObjectValue, sep: string, except: Set<string>, prefix: string, out: ObjectValue): void {
  for (const k in v) {
    const x = v[k]!;
    const key = prefix ? prefix + sep + k : k;
    if (isObject(x) && Object.keys(x).length > 0 && !except.has(k)) flattenObject(x, sep, except, key, out);
    else out[key] = x;
  }
}

function flattenArray(v: Value[], out: Value[]): Value[] {
  for (const x of v) {
    if (Array.isArray(x)) flattenArray(x, out);
    else out.push(x);
  }
  return out;
}

function unflattenObject(v: ObjectValue, sep: string, recursive: boolean): ObjectValue {
  const out: ObjectValue = {};
  for (const k in v) {
    let x = v[k]!;
    const parts = sep === '' ? [k] : k.split(sep);
    let cur = out;
    for (let i = 0; i < parts.length - 1; i++) {
      const p = parts[i]!;
      const next = cur[p];
      if (!isObject(next)) cur[p] = {};
      cur = cur[p] as ObjectValue;
    }
    if (recursive && isObject(x)) x = unflattenObject(x, sep, true);
    const last = parts[parts.length - 1]!;
    if (isObject(cur[last]) && isObject(x)) cur[last] = { ...(cur[last] as ObjectValue), ...x };
    else cur[last] = x;
  }
  if (recursive) for (const k in out) if (isObject(out[k]!)) out[k] = unflattenObject(out[k] as ObjectValue, sep, true);
  return out;
}

function deepMerge(to: ObjectValue, from: ObjectValue, deep: boolean): ObjectValue {
  const out: ObjectValue = { ...to };
  for (const k in from) {
    const a = out[k];
    const b = from[k]!;
    out[k] = deep && isObject(a) && isObject(b) ? deepMerge(a, b, true) : b;
  }
  return out;
}

/** The functions of this file, for the stdlib list. */
export const collectionFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'push',
    description: 'Array with a value added at the end.',
    params: [req('value', K.ARRAY), req('item', K.ALL)],
    returns: (args) => {
      const a = arrKind(args[0]!);
      if (a.itemsUnknown !== undefined) return K.arrayOf(K.union(a.itemsUnknown, K.undefinedToNull(args[1]!.kind)));
      const items = new Map(a.items);
      items.set(items.size, K.undefinedToNull(args[1]!.kind));
      return K.arrayKind(items);
    },
    call: ([v, x]) => [...(v as Value[]), x!],
  }),
  defineFunction({
    name: 'append',
    description: 'Array with the items of the second array added at the end of the first.',
    params: [req('value', K.ARRAY), req('items', K.ARRAY)],
    returns: (args) => {
      const a = arrKind(args[0]!);
      const b = arrKind(args[1]!);
      if (a.itemsUnknown !== undefined || b.itemsUnknown !== undefined) return K.arrayOf(K.union(K.elementKind(a), K.elementKind(b)));
      const items = new Map(a.items);
      for (const [i, kk] of b.items) items.set(a.items.size + i, kk);
      return K.arrayKind(items);
    },
    call: ([v, x]) => {
      const a = v as Value[];
      const b = x as Value[];
      // doubling an array in a loop of appends reaches V8's array limit within 27 steps, and V8
      // ends the process there instead of throwing
      if (a.length + b.length > MAX_ARRAY_ITEMS) return fail(`can't append: the array would have more than ${MAX_ARRAY_ITEMS} items`);
      return [...a, ...b];
    },
  }),
  defineFunction({
    name: 'pop',
    description: 'Array without its last element.',
    params: [req('value', K.ARRAY)],
    returns: (args) => K.arrayOf(K.elementKind(arrKind(args[0]!))),
    call: ([v]) => (v as Value[]).slice(0, -1),
  }),
  defineFunction({
    name: 'includes',
    description: 'Whether an array contains a value.',
    params: [req('value', K.ARRAY), req('item', K.ALL)],
    returns: K.K_BOOLEAN,
    call: ([v, x]) => (v as Value[]).some((e) => valueEquals(e, x!)),
  }),
  defineFunction({
    name: 'unique',
    description: 'Array without duplicate values.',
    params: [req('value', K.ARRAY)],
    returns: K.K_ARRAY,
    call: ([v]) => {
      const out: Value[] = [];
      for (const x of v as Value[]) if (!out.some((y) => valueEquals(x, y))) out.push(x);
      return out;
    },
  }),
  defineFunction({
    name: 'merge',
    description: 'Merges two objects, optionally deeply.',
    params: [req('to', K.OBJECT), req('from', K.OBJECT), opt('deep', K.BOOLEAN)],
    returns: (args) => K.mergeObjects(args[0]!.kind.isOnly(K.OBJECT) ? args[0]!.kind : K.K_OBJECT, args[1]!.kind.isOnly(K.OBJECT) ? args[1]!.kind : K.K_OBJECT),
    call: ([a, b, d]) => deepMerge(a as ObjectValue, b as ObjectValue, d === true),
  }),
  defineFunction({
    name: 'compact',
    description: 'Removes empty and null values from an object or array.',
    params: [
      req('value', K.ARRAY | K.OBJECT),
      opt('recursive', K.BOOLEAN),
      opt('null', K.BOOLEAN),
      opt('string', K.BOOLEAN),
      opt('object', K.BOOLEAN),
      opt('array', K.BOOLEAN),
      opt('nullish', K.BOOLEAN),
    ],
    returns: sameContainer,
    call: ([v, r, n, s, o, a, ns]) =>
      compactValue(v!, r !== false, { null: n !== false, string: s !== false, object: o !== false, array: a !== false, nullish: ns === true }),
  }),
  defineFunction({
    name: 'flatten',
    description: 'Flattens nested objects and arrays into one level.',
    params: [req('value', K.ARRAY | K.OBJECT), opt('separator', K.BYTES), opt('except', K.ARRAY)],
    returns: sameContainer,
    call: ([v, sep, ex]) => {
      if (Array.isArray(v)) return flattenArray(v, []);
      const out: ObjectValue = {};
      flattenObject(v as ObjectValue, optStr(sep, '.'), new Set(((ex as Value[] | undefined) ?? []).filter((x): x is string => typeof x === 'string')), '', out);
      return out;
    },
  }),
  defineFunction({
    name: 'unflatten',
    description: 'Nests an object whose keys are dotted paths.',
    params: [req('value', K.OBJECT), opt('separator', K.BYTES), opt('recursive', K.BOOLEAN)],
    returns: K.K_OBJECT,
    call: ([v, sep, rec]) => unflattenObject(v as ObjectValue, optStr(sep, '.'), rec !== false),
  }),
  defineFunction({
    name: 'keys',
    description: 'Keys of an object.',
    fresh: true,
    params: [req('value', K.OBJECT)],
    returns: K.arrayOf(K.K_BYTES),
    call: ([v]) => Object.keys(v as ObjectValue).sort(),
  }),
  defineFunction({
    name: 'values',
    description: 'Values of an object.',
    params: [req('value', K.OBJECT)],
    returns: K.K_ARRAY,
    call: ([v]) => Object.keys(v as ObjectValue).sort().map((k) => (v as ObjectValue)[k]!),
  }),
  defineFunction({
    name: 'to_entries',
    description: 'Key/value entries of an object.',
    params: [{ name: 'value', kind: K.OBJECT | K.ARRAY, required: true }],
    returns: K.arrayOf(K.objectKind(new Map([['key', K.k(K.BYTES | K.INTEGER)], ['value', K.ANY.without(K.UNDEFINED)]]))),
    call: ([v]) =>
      Array.isArray(v) ? v.map((x, i) => ({ key: i, value: x })) : Object.keys(v as ObjectValue).sort().map((k) => ({ key: k, value: (v as ObjectValue)[k]! })),
  }),
  defineFunction({
    name: 'from_entries',
    description: 'Object from an array of key/value entries.',
    params: [{ name: 'value', kind: K.ARRAY, required: true }],
    fallible: (args) => {
      const k = args[0]!.kind;
      if (!k.isOnly(K.ARRAY)) return true;
      if (k.items.size === 0 && k.itemsUnknown === undefined) return false;
      return !K.elementKind(k).isOnly(K.OBJECT);
    },
    returns: K.K_OBJECT,
    call: ([v]) => {
      const out: ObjectValue = {};
      for (const e of v as Value[]) {
        if (!isObject(e)) return fail('expected array of objects');
        const k = e.key;
        if (typeof k !== 'string') return fail('expected "key" field to be a string');
        out[k] = e.value ?? null;
      }
      return out;
    },
  }),
  defineFunction({
    name: 'chunks',
    description: 'Splits a string or byte sequence into chunks of at most a given length.',
    params: [req('value', K.ARRAY | K.BYTES), req('chunk_size', K.INTEGER)],
    fallible: (args) => !args[1]!.isConstant,
    prepare: (args) => {
      const c = args[1]!;
      if (c.isConstant && typeof c.constant === 'number' && c.constant < 1) throw new FunctionCompileError('"chunk_size" must be at least 1 byte', 'chunk_size', String(c.constant));
      return undefined;
    },
    returns: (args) => (args[0]!.kind.isOnly(K.BYTES) ? K.arrayOf(K.K_BYTES) : K.arrayOf(K.ANY.without(K.UNDEFINED))),
    call: ([v, n]) => {
      const size = n as number;
      if (size < 1) return fail('"chunk_size" must be at least 1 byte');
      const out: Value[] = [];
      if (typeof v === 'string') {
        const b = toBytes(v);
        for (let i = 0; i < b.length; i += size) out.push(fromBytes(b.subarray(i, i + size)));
      } else for (let i = 0; i < (v as Value[]).length; i += size) out.push((v as Value[]).slice(i, i + size));
      return out;
    },
  }),
  defineFunction({
    name: 'zip',
    description: 'Array of tuples taking one element from each input array.',
    params: [req('array_0', K.ARRAY), opt('array_1', K.ARRAY)],
    fallible: (args) => !args[1]!.present && !K.elementKind(args[0]!.kind).isOnly(K.ARRAY),
    returns: K.arrayOf(K.K_ARRAY),
    call: ([a, b]) => {
      const arrays = (b === undefined ? a : [a, b]) as Value[];
      for (const x of arrays) if (!Array.isArray(x)) fail(`expected array, got ${K.valueKindName(x)}`);
      // no arrays zip to nothing (Math.min() alone is Infinity)
      const len = arrays.length === 0 ? 0 : Math.min(...(arrays as Value[][]).map((x) => x.length));
      const out: Value[] = [];
      for (let i = 0; i < len; i++) out.push((arrays as Value[][]).map((x) => x[i]!));
      return out;
    },
  }),
  defineFunction({
    name: 'object_from_array',
    description: 'Object from an array of pairs or from arrays of keys and values.',
    params: [req('values', K.ARRAY), opt('keys', K.ARRAY)],
    fallible: (args) => (args[1]!.present ? !K.elementKind(args[1]!.kind).isOnly(K.BYTES | K.NULL) : !K.elementKind(args[0]!.kind).isOnly(K.ARRAY)),
    returns: K.K_OBJECT,
    call: ([vals, keys]) => {
      const out: ObjectValue = {};
      if (keys !== undefined && keys !== null) {
        (keys as Value[]).forEach((k, i) => {
          if (k === null) return;
          if (typeof k !== 'string') fail('`keys` must be an array of strings');
          out[k] = (vals as Value[])[i] ?? null;
        });
        return out;
      }
      for (const pair of vals as Value[]) {
        if (!Array.isArray(pair) || pair.length < 1) fail('expected array of arrays');
        const k = (pair as Value[])[0];
        if (k === null) continue;
        if (typeof k !== 'string') fail('object keys must be strings');
        out[k] = (pair as Value[])[1] ?? null;
      }
      return out;
    },
  }),
  defineFunction({
    name: 'tally',
    description: 'Counts of each distinct string in an array.',
    fresh: true,
    params: [{ name: 'value', kind: K.ARRAY, required: true }],
    fallible: true,
    returns: K.objectOf(K.K_INTEGER),
    call: ([v]) => {
      const out: ObjectValue = {};
      for (const x of v as Value[]) {
        if (typeof x !== 'string') return fail(`all values must be strings, found: ${K.valueKindName(x)}`);
        out[x] = ((out[x] as number | undefined) ?? 0) + 1;
      }
      return out;
    },
  }),
  defineFunction({
    name: 'tally_value',
    description: 'Number of times a value occurs in an array.',
    params: [
      { name: 'array', kind: K.ARRAY, required: true },
      { name: 'value', kind: K.ALL, required: true },
    ],
    returns: K.K_INTEGER,
    call: ([a, v]) => (a as Value[]).filter((x) => valueEquals(x, v!)).length,
  }),
];
