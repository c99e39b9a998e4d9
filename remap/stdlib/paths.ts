/** Values addressed by path: exists, del and unnest take a path query; get, set and remove an array of segments. */
import { type ObjectValue, type Value, cloneValue, isObject } from '../../lib/value.js';
import { type FnDef, type QueryRef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { opt, req, sameContainer } from './args.js';
import { fail } from './errors.js';

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
export const pathFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'exists',
    description: 'Whether a field or array index exists.',
    params: [{ name: 'path', kind: K.ALL, required: true, query: true }],
    returns: K.K_BOOLEAN,
    call: ([q], env) => (q as unknown as QueryRef).exists(env.ctx),
  }),
  defineFunction({
    name: 'del',
    description: 'Removes a field and returns its value.',
    params: [
      { name: 'path', kind: K.ALL, required: true, query: true },
      { name: 'compact', kind: K.BOOLEAN },
    ],
    returns: K.ANY,
    call: ([q, c], env) => (q as unknown as QueryRef).remove(env.ctx, c === true),
  }),
  defineFunction({
    name: 'get',
    description: 'Value at a dynamic path in an object or array.',
    params: [req('value', K.OBJECT | K.ARRAY), req('path', K.ARRAY)],
    fallible: true,
    returns: K.ANY.without(K.UNDEFINED),
    call: ([v, p]) => getAt(v!, pathOf(p!)),
  }),
  defineFunction({
    name: 'set',
    description: 'Value with a value written at a path.',
    params: [req('value', K.OBJECT | K.ARRAY), req('path', K.ARRAY), req('data', K.ALL)],
    fallible: true,
    returns: sameContainer,
    call: ([v, p, d]) => setAt(cloneValue(v!), pathOf(p!), 0, d!),
  }),
  defineFunction({
    name: 'remove',
    description: 'Value with the element at a path removed.',
    params: [req('value', K.OBJECT | K.ARRAY), req('path', K.ARRAY), opt('compact', K.BOOLEAN)],
    fallible: true,
    returns: sameContainer,
    call: ([v, p, c]) => removeAtPath(v!, pathOf(p!), 0, c === true),
  }),
  defineFunction({
    name: 'unnest',
    description: 'One copy of the object per element of the array at a path.',
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
