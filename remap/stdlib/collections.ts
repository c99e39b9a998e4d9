/** Object and array functions: push/append/pop, merge, compact, flatten/unflatten, get/set/remove, keys/values, unnest, chunks, zip. */
import { type ObjectValue, type Value, cloneValue, isObject, valueEquals } from '../../lib/value.js';
import { type ArgInfo, type FnDef, FunctionCompileError, type QueryRef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fail, fromBytes, optStr, toBytes } from './util.js';

const req = (name: string, kind: number) => ({ name, kind, required: true });
const opt = (name: string, kind: number) => ({ name, kind });

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

/** Validates a `path` argument of get/set/remove: strings and integers only. */
function pathOf(p: Value): (string | number)[] {
  const arr = p as Value[];
  for (const s of arr) {
    if (typeof s !== 'string' && typeof s !== 'number') fail(`path segment must be either string or integer, not ${K.valueKindName(s)}`);
  }
  return arr as (string | number)[];
}

function getAt(v: Value, path: (string | number)[]): Value {
  let cur: Value | undefined = v;
  for (const s of path) {
    if (typeof s === 'number') {
      if (!Array.isArray(cur)) return null;
      cur = cur[s < 0 ? cur.length + s : s];
    } else {
      if (!isObject(cur)) return null;
      cur = Object.prototype.hasOwnProperty.call(cur, s) ? cur[s] : undefined;
    }
    if (cur === undefined) return null;
  }
  return cur;
}

function setAt(v: Value, path: (string | number)[], i: number, data: Value): Value {
  if (i === path.length) return data;
  const s = path[i]!;
  if (typeof s === 'number') {
    const arr = Array.isArray(v) ? [...v] : [];
    let idx = s < 0 ? arr.length + s : s;
    if (idx < 0) {
      arr.unshift(...new Array<Value>(-idx).fill(null));
      idx = 0;
    }
    while (arr.length < idx) arr.push(null);
    arr[idx] = setAt(arr[idx] ?? null, path, i + 1, data);
    return arr;
  }
  const obj: ObjectValue = isObject(v) ? { ...v } : {};
  obj[s] = setAt(obj[s] ?? null, path, i + 1, data);
  return obj;
}

function removeAtPath(v: Value, path: (string | number)[], i: number, compact: boolean): Value {
  if (i === path.length) return v;
  const s = path[i]!;
  const last = i === path.length - 1;
  if (typeof s === 'number' && Array.isArray(v)) {
    const arr = [...v];
    const idx = s < 0 ? arr.length + s : s;
    if (idx < 0 || idx >= arr.length) return v;
    if (last) arr.splice(idx, 1);
    else {
      arr[idx] = removeAtPath(arr[idx]!, path, i + 1, compact);
      if (compact && isEmptyContainer(arr[idx]!)) arr.splice(idx, 1);
    }
    return arr;
  }
  if (typeof s === 'string' && isObject(v)) {
    if (!Object.prototype.hasOwnProperty.call(v, s)) return v;
    const obj = { ...v };
    if (last) delete obj[s];
    else {
      obj[s] = removeAtPath(obj[s]!, path, i + 1, compact);
      if (compact && isEmptyContainer(obj[s]!)) delete obj[s];
    }
    return obj;
  }
  return v;
}

const isEmptyContainer = (v: Value): boolean => (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);

/** The functions of this file, for the stdlib list. */
export const collectionFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'push',
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
    params: [req('value', K.ARRAY), req('items', K.ARRAY)],
    returns: (args) => {
      const a = arrKind(args[0]!);
      const b = arrKind(args[1]!);
      if (a.itemsUnknown !== undefined || b.itemsUnknown !== undefined) return K.arrayOf(K.union(K.elementKind(a), K.elementKind(b)));
      const items = new Map(a.items);
      for (const [i, kk] of b.items) items.set(a.items.size + i, kk);
      return K.arrayKind(items);
    },
    call: ([v, x]) => [...(v as Value[]), ...(x as Value[])],
  }),
  defineFunction({
    name: 'pop',
    params: [req('value', K.ARRAY)],
    returns: (args) => K.arrayOf(K.elementKind(arrKind(args[0]!))),
    call: ([v]) => (v as Value[]).slice(0, -1),
  }),
  defineFunction({
    name: 'includes',
    params: [req('value', K.ARRAY), req('item', K.ALL)],
    returns: K.K_BOOLEAN,
    call: ([v, x]) => (v as Value[]).some((e) => valueEquals(e, x!)),
  }),
  defineFunction({
    name: 'unique',
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
    params: [req('to', K.OBJECT), req('from', K.OBJECT), opt('deep', K.BOOLEAN)],
    returns: (args) => K.mergeObjects(args[0]!.kind.isOnly(K.OBJECT) ? args[0]!.kind : K.K_OBJECT, args[1]!.kind.isOnly(K.OBJECT) ? args[1]!.kind : K.K_OBJECT),
    call: ([a, b, d]) => deepMerge(a as ObjectValue, b as ObjectValue, d === true),
  }),
  defineFunction({
    name: 'compact',
    params: [
      req('value', K.ARRAY | K.OBJECT),
      opt('recursive', K.BOOLEAN),
      opt('null', K.BOOLEAN),
      opt('string', K.BOOLEAN),
      opt('object', K.BOOLEAN),
      opt('array', K.BOOLEAN),
      opt('nullish', K.BOOLEAN),
    ],
    returns: (args) => (args[0]!.kind.isOnly(K.ARRAY) ? K.K_ARRAY : args[0]!.kind.isOnly(K.OBJECT) ? K.K_OBJECT : K.k(K.ARRAY | K.OBJECT)),
    call: ([v, r, n, s, o, a, ns]) =>
      compactValue(v!, r !== false, { null: n !== false, string: s !== false, object: o !== false, array: a !== false, nullish: ns === true }),
  }),
  defineFunction({
    name: 'flatten',
    params: [req('value', K.ARRAY | K.OBJECT), opt('separator', K.BYTES), opt('except', K.ARRAY)],
    returns: (args) => (args[0]!.kind.isOnly(K.ARRAY) ? K.K_ARRAY : args[0]!.kind.isOnly(K.OBJECT) ? K.K_OBJECT : K.k(K.ARRAY | K.OBJECT)),
    call: ([v, sep, ex]) => {
      if (Array.isArray(v)) return flattenArray(v, []);
      const out: ObjectValue = {};
      flattenObject(v as ObjectValue, optStr(sep, '.'), new Set(((ex as Value[] | undefined) ?? []).filter((x): x is string => typeof x === 'string')), '', out);
      return out;
    },
  }),
  defineFunction({
    name: 'unflatten',
    params: [req('value', K.OBJECT), opt('separator', K.BYTES), opt('recursive', K.BOOLEAN)],
    returns: K.K_OBJECT,
    call: ([v, sep, rec]) => unflattenObject(v as ObjectValue, optStr(sep, '.'), rec !== false),
  }),
  defineFunction({
    name: 'keys',
    fresh: true,
    params: [req('value', K.OBJECT)],
    returns: K.arrayOf(K.K_BYTES),
    call: ([v]) => Object.keys(v as ObjectValue).sort(),
  }),
  defineFunction({
    name: 'values',
    params: [req('value', K.OBJECT)],
    returns: K.K_ARRAY,
    call: ([v]) => Object.keys(v as ObjectValue).sort().map((k) => (v as ObjectValue)[k]!),
  }),
  defineFunction({
    name: 'get',
    params: [req('value', K.OBJECT | K.ARRAY), req('path', K.ARRAY)],
    fallible: true,
    returns: K.ANY.without(K.UNDEFINED),
    call: ([v, p]) => getAt(v!, pathOf(p!)),
  }),
  defineFunction({
    name: 'set',
    params: [req('value', K.OBJECT | K.ARRAY), req('path', K.ARRAY), req('data', K.ALL)],
    fallible: true,
    returns: (args) => (args[0]!.kind.isOnly(K.ARRAY) ? K.K_ARRAY : args[0]!.kind.isOnly(K.OBJECT) ? K.K_OBJECT : K.k(K.ARRAY | K.OBJECT)),
    call: ([v, p, d]) => setAt(cloneValue(v!), pathOf(p!), 0, d!),
  }),
  defineFunction({
    name: 'remove',
    params: [req('value', K.OBJECT | K.ARRAY), req('path', K.ARRAY), opt('compact', K.BOOLEAN)],
    fallible: true,
    returns: (args) => (args[0]!.kind.isOnly(K.ARRAY) ? K.K_ARRAY : args[0]!.kind.isOnly(K.OBJECT) ? K.K_OBJECT : K.k(K.ARRAY | K.OBJECT)),
    call: ([v, p, c]) => removeAtPath(v!, pathOf(p!), 0, c === true),
  }),
  defineFunction({
    name: 'chunks',
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
    params: [req('array_0', K.ARRAY), opt('array_1', K.ARRAY)],
    fallible: (args) => !args[1]!.present && !K.elementKind(args[0]!.kind).isOnly(K.ARRAY),
    returns: K.arrayOf(K.K_ARRAY),
    call: ([a, b]) => {
      const arrays = (b === undefined ? a : [a, b]) as Value[];
      for (const x of arrays) if (!Array.isArray(x)) fail(`expected array, got ${K.valueKindName(x)}`);
      const len = Math.min(...(arrays as Value[][]).map((x) => x.length));
      const out: Value[] = [];
      for (let i = 0; i < len; i++) out.push((arrays as Value[][]).map((x) => x[i]!));
      return out;
    },
  }),
  defineFunction({
    name: 'object_from_array',
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
    name: 'unnest',
    params: [{ name: 'path', kind: K.ARRAY, required: true, query: true }],
    fallible: (args) => !args[0]!.kind.has(K.ARRAY),
    returns: (args) => {
      const a = args[0]!;
      if (!a.rootKind || !a.path) return K.K_ARRAY;
      if (!a.kind.has(K.ARRAY)) return K.NEVER;
      const items = new Map<number, K.Kind>();
      for (const [i, kk] of a.kind.items) items.set(i, K.kindSet(a.rootKind, a.path, kk));
      const u = a.kind.itemsUnknown;
      return K.arrayKind(items, u && u.without(K.UNDEFINED).bits !== 0 ? K.kindSet(a.rootKind, a.path, u.without(K.UNDEFINED)) : undefined);
    },
    call: ([q], env) => {
      const ref = q as unknown as QueryRef;
      const items = ref.get(env.ctx);
      if (!Array.isArray(items)) return fail(`expected array, got ${K.valueKindName(items)}`);
      const root = ref.root(env.ctx);
      return items.map((x) => ref.withValue(root, x));
    },
  }),
];
