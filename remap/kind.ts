/**
 * Compile-time value kinds of the remap language: a bit set of primitive kinds plus, for objects
 * and arrays, the kinds of known fields / indexes and of the unknown rest. Kinds are immutable.
 */
import { type Value, Float, Timestamp } from '../lib/value.js';

/** Kind bits (one per primitive kind, plus object/array/undefined). */
export const BYTES = 1;
export const INTEGER = 2;
export const FLOAT = 4;
export const BOOLEAN = 8;
export const TIMESTAMP = 16;
export const REGEX = 32;
export const NULL = 64;
export const UNDEFINED = 128;
export const OBJECT = 256;
export const ARRAY = 512;
/** Every kind a value can have (not undefined). */
export const ANY_VALUE = 1023 & ~UNDEFINED;
/** Every kind including undefined. */
export const ALL = 1023;

/**
 * Most nodes one kind may hold (itself, plus known fields and items counted through nesting, a
 * shared node once per use) and the deepest nesting it may have. A kind past either collapses
 * (see the constructor), so type checking stays linear in program size: `a = append(a, a)` doubles
 * a kind per line, and 27 such lines would otherwise need 2^27 entries.
 */
export const MAX_KIND_SIZE = 4096;
/** See {@link MAX_KIND_SIZE}. */
export const MAX_KIND_DEPTH = 64;

/** Compile-time kind of an expression. `fields`/`items` matter only when the OBJECT/ARRAY bit is set. */
export class Kind {
  readonly bits: number;
  readonly fields: ReadonlyMap<string, Kind>;
  /** Kind of fields not listed; undefined = no other fields (exact). */
  readonly fieldsUnknown: Kind | undefined;
  readonly items: ReadonlyMap<number, Kind>;
  readonly itemsUnknown: Kind | undefined;
  /** Nodes of this kind, as {@link MAX_KIND_SIZE} counts them. */
  readonly size: number;
  /** Nesting depth (1 for a kind without known or unknown contents). */
  readonly depth: number;

  /**
   * A kind over the limits collapses soundly: known fields and items become the unknown rest
   * (their union), and if that is still too large or deep, the rest becomes any value. An exact
   * array `[1, 2]` becomes an array of integers, never a narrower kind.
   */
  constructor(
    bits: number,
    fields: ReadonlyMap<string, Kind> = EMPTY_FIELDS,
    fieldsUnknown: Kind | undefined = undefined,
    items: ReadonlyMap<number, Kind> = EMPTY_ITEMS,
    itemsUnknown: Kind | undefined = undefined,
  ) {
    let [size, depth] = measure(fields, fieldsUnknown, items, itemsUnknown);
    if (size > MAX_KIND_SIZE || depth > MAX_KIND_DEPTH) {
      if (fields.size > 0) {
        fieldsUnknown = unionOf(fields.values(), fieldsUnknown);
        fields = EMPTY_FIELDS;
      }
      if (items.size > 0) {
        itemsUnknown = unionOf(items.values(), itemsUnknown);
        items = EMPTY_ITEMS;
      }
      [size, depth] = measure(fields, fieldsUnknown, items, itemsUnknown);
      if (size > MAX_KIND_SIZE || depth > MAX_KIND_DEPTH) {
        if (fieldsUnknown !== undefined) fieldsUnknown = ANY;
        if (itemsUnknown !== undefined) itemsUnknown = ANY;
        [size, depth] = measure(fields, fieldsUnknown, items, itemsUnknown);
      }
    }
    this.bits = bits;
    this.fields = fields;
    this.fieldsUnknown = fieldsUnknown;
    this.items = items;
    this.itemsUnknown = itemsUnknown;
    this.size = size;
    this.depth = depth;
  }

  has(bits: number): boolean {
    return (this.bits & bits) !== 0;
  }
  /** Only these bits (and nothing else). */
  isOnly(bits: number): boolean {
    return this.bits !== 0 && (this.bits & ~bits) === 0;
  }
  get isNever(): boolean {
    return this.bits === 0;
  }
  get isAny(): boolean {
    return this === ANY || (this.bits === ALL && isAnyCollection(this.fields.size, this.fieldsUnknown) && isAnyCollection(this.items.size, this.itemsUnknown));
  }
  without(bits: number): Kind {
    return new Kind(this.bits & ~bits, this.fields, this.fieldsUnknown, this.items, this.itemsUnknown);
  }
  with(bits: number): Kind {
    if ((this.bits & bits) === bits) return this;
    let k: Kind = new Kind(this.bits | bits, this.fields, this.fieldsUnknown, this.items, this.itemsUnknown);
    if (bits & OBJECT && !(this.bits & OBJECT)) k = new Kind(k.bits, EMPTY_FIELDS, ANY, k.items, k.itemsUnknown);
    if (bits & ARRAY && !(this.bits & ARRAY)) k = new Kind(k.bits, k.fields, k.fieldsUnknown, EMPTY_ITEMS, ANY);
    return k;
  }
}

/** Size and depth of a kind with these contents (see {@link MAX_KIND_SIZE}). */
function measure(fields: ReadonlyMap<string, Kind>, fu: Kind | undefined, items: ReadonlyMap<number, Kind>, iu: Kind | undefined): [number, number] {
  let size = 1;
  let depth = 0;
  for (const v of fields.values()) {
    size += v.size;
    if (v.depth > depth) depth = v.depth;
  }
  for (const v of items.values()) {
    size += v.size;
    if (v.depth > depth) depth = v.depth;
  }
  if (fu !== undefined) {
    size += fu.size;
    if (fu.depth > depth) depth = fu.depth;
  }
  if (iu !== undefined) {
    size += iu.size;
    if (iu.depth > depth) depth = iu.depth;
  }
  return [size, depth + 1];
}

function unionOf(kinds: Iterable<Kind>, rest: Kind | undefined): Kind {
  let out = rest ?? NEVER;
  for (const v of kinds) out = union(out, v);
  return out;
}

function isAnyCollection(size: number, unknown: Kind | undefined): boolean {
  return size === 0 && unknown !== undefined && (unknown === ANY || unknown.bits === ALL);
}

const EMPTY_FIELDS: ReadonlyMap<string, Kind> = new Map();
const EMPTY_ITEMS: ReadonlyMap<number, Kind> = new Map();

/** Any value, or undefined; objects and arrays of anything. */
export const ANY: Kind = (() => {
  const k = new Kind(ALL) as { -readonly [K in keyof Kind]: Kind[K] };
  (k as { fieldsUnknown: Kind | undefined }).fieldsUnknown = k as Kind;
  (k as { itemsUnknown: Kind | undefined }).itemsUnknown = k as Kind;
  return k as Kind;
})();
/** The kind of an expression that never yields (abort, return). */
export const NEVER = new Kind(0);

/** Kind from bits; object/array bits get unknown contents of any kind. */
export const k = (bits: number): Kind => {
  let out = new Kind(bits);
  if (bits & OBJECT) out = new Kind(out.bits, EMPTY_FIELDS, ANY, out.items, out.itemsUnknown);
  if (bits & ARRAY) out = new Kind(out.bits, out.fields, out.fieldsUnknown, EMPTY_ITEMS, ANY);
  return out;
};
/** Single-kind constants. */
export const K_BYTES = new Kind(BYTES);
export const K_INTEGER = new Kind(INTEGER);
export const K_FLOAT = new Kind(FLOAT);
export const K_BOOLEAN = new Kind(BOOLEAN);
export const K_TIMESTAMP = new Kind(TIMESTAMP);
export const K_REGEX = new Kind(REGEX);
export const K_NULL = new Kind(NULL);
export const K_UNDEFINED = new Kind(UNDEFINED);
/** An object with unknown fields of any kind. */
export const K_OBJECT = k(OBJECT);
/** An array of unknown items of any kind. */
export const K_ARRAY = k(ARRAY);

/** An exact object kind with these fields. */
export function objectKind(fields: Map<string, Kind>, unknown?: Kind): Kind {
  return new Kind(OBJECT, fields, unknown);
}
/** An exact array kind with these items. */
export function arrayKind(items: Map<number, Kind>, unknown?: Kind): Kind {
  return new Kind(ARRAY, EMPTY_FIELDS, undefined, items, unknown);
}
/** Object whose every (unknown) field has this kind. */
export function objectOf(v: Kind): Kind {
  return new Kind(OBJECT, EMPTY_FIELDS, v);
}
/** Array whose every (unknown) item has this kind. */
export function arrayOf(v: Kind): Kind {
  return new Kind(ARRAY, EMPTY_FIELDS, undefined, EMPTY_ITEMS, v);
}

function unionOpt(a: Kind | undefined, b: Kind | undefined): Kind | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return union(a, b);
}

/**
 * Union of two container shapes (object fields or array items): a side without that container
 * contributes nothing; a key known on one side only may also hold the other side's unknown kind.
 */
function unionShape<K>(
  aHas: number,
  bHas: number,
  aMap: ReadonlyMap<K, Kind>,
  aUnknown: Kind | undefined,
  bMap: ReadonlyMap<K, Kind>,
  bUnknown: Kind | undefined,
  empty: ReadonlyMap<K, Kind>,
): [ReadonlyMap<K, Kind>, Kind | undefined] {
  if (!aHas) return [bHas ? bMap : empty, bUnknown];
  if (!bHas) return [aMap, aUnknown];
  const m = new Map<K, Kind>();
  for (const [key, v] of aMap) m.set(key, union(v, bMap.get(key) ?? bUnknown ?? K_UNDEFINED));
  for (const [key, v] of bMap) if (!m.has(key)) m.set(key, union(v, aUnknown ?? K_UNDEFINED));
  return [m, unionOpt(aUnknown, bUnknown)];
}

/** Kind that may be either a or b. */
export function union(a: Kind, b: Kind): Kind {
  if (a === b || a === ANY) return a;
  if (b === ANY) return b;
  if (a.bits === 0) return b;
  if (b.bits === 0) return a;
  const bits = a.bits | b.bits;
  const [fields, fu] = bits & OBJECT ? unionShape(a.bits & OBJECT, b.bits & OBJECT, a.fields, a.fieldsUnknown, b.fields, b.fieldsUnknown, EMPTY_FIELDS) : [EMPTY_FIELDS, undefined];
  const [items, iu] = bits & ARRAY ? unionShape(a.bits & ARRAY, b.bits & ARRAY, a.items, a.itemsUnknown, b.items, b.itemsUnknown, EMPTY_ITEMS) : [EMPTY_ITEMS, undefined];
  return new Kind(bits, fields, fu, items, iu);
}

/** The kind bit of a runtime value, without the shape of its fields or items (checks at run time). */
export function valueBits(v: Value): number {
  if (v === null) return NULL;
  switch (typeof v) {
    case 'string':
      return BYTES;
    case 'number':
      return INTEGER;
    case 'boolean':
      return BOOLEAN;
  }
  if (v instanceof Float) return FLOAT;
  if (v instanceof Timestamp) return TIMESTAMP;
  if (v instanceof RegExp) return REGEX;
  return Array.isArray(v) ? ARRAY : OBJECT;
}

/** Kind of a runtime value, exact. */
export function kindOfValue(v: Value): Kind {
  if (v === null) return K_NULL;
  switch (typeof v) {
    case 'string':
      return K_BYTES;
    case 'number':
      return K_INTEGER;
    case 'boolean':
      return K_BOOLEAN;
  }
  if (v instanceof Float) return K_FLOAT;
  if (v instanceof Timestamp) return K_TIMESTAMP;
  if (v instanceof RegExp) return K_REGEX;
  if (Array.isArray(v)) {
    const m = new Map<number, Kind>();
    v.forEach((x, i) => m.set(i, kindOfValue(x)));
    return arrayKind(m);
  }
  const m = new Map<string, Kind>();
  for (const key in v) m.set(key, kindOfValue(v[key] as Value));
  return objectKind(m);
}

/** A path segment as the type checker sees it. */
export type KSeg = string | number | readonly string[];

/** Kind found at path; undefined appears where the path may be missing. */
export function kindAt(kind: Kind, path: readonly KSeg[], from = 0): Kind {
  if (from >= path.length) return kind;
  if (kind === ANY) return ANY;
  const seg = path[from]!;
  let out = NEVER;
  if (typeof seg === 'number') {
    if (kind.bits & ARRAY) {
      let it: Kind | undefined;
      if (seg >= 0) it = kind.items.get(seg);
      else if (kind.itemsUnknown === undefined) {
        const len = kind.items.size;
        it = kind.items.get(len + seg);
        if (len + seg < 0) it = K_UNDEFINED;
      }
      const sub = it ?? (kind.itemsUnknown ? union(kind.itemsUnknown, K_UNDEFINED) : K_UNDEFINED);
      out = union(out, kindAt(sub, path, from + 1));
    }
    if (kind.bits & ~ARRAY) out = union(out, K_UNDEFINED);
  } else if (typeof seg === 'string') {
    if (kind.bits & OBJECT) {
      const f = kind.fields.get(seg);
      const sub = f ?? (kind.fieldsUnknown ? union(kind.fieldsUnknown, K_UNDEFINED) : K_UNDEFINED);
      out = union(out, kindAt(sub, path, from + 1));
    }
    if (kind.bits & ~OBJECT) out = union(out, K_UNDEFINED);
  } else {
    for (const name of seg) out = union(out, kindAt(kind, [name, ...path.slice(from + 1)]));
  }
  return out;
}

/** Kind after assigning `value` at path (creating containers on the way). */
export function kindSet(kind: Kind, path: readonly KSeg[], value: Kind, from = 0): Kind {
  if (from >= path.length) return value;
  const seg = path[from]!;
  if (typeof seg === 'number') {
    const base = kind.bits & ARRAY ? kind : arrayKind(new Map());
    const items = new Map(base.bits & ARRAY ? base.items : EMPTY_ITEMS);
    let idx = seg;
    if (idx < 0) {
      if (base.itemsUnknown !== undefined) return arrayKind(items, union(base.itemsUnknown, value));
      const len = items.size;
      if (len + idx < 0) {
        // negative index past the start: the array grows at the front (null padding)
        const shift = -(len + idx);
        const m = new Map<number, Kind>();
        for (const [i, v] of items) m.set(i + shift, v);
        for (let i = 1; i < shift; i++) m.set(i, K_NULL);
        idx = 0;
        m.set(0, kindSet(K_UNDEFINED, path, value, from + 1));
        return arrayKind(m, base.itemsUnknown);
      }
      idx = len + idx;
    }
    const cur = items.get(idx) ?? base.itemsUnknown ?? K_UNDEFINED;
    if (base.itemsUnknown === undefined) for (let i = items.size; i < idx; i++) if (!items.has(i)) items.set(i, K_NULL);
    items.set(idx, kindSet(cur, path, value, from + 1));
    return arrayKind(items, base.itemsUnknown);
  }
  if (typeof seg !== 'string') {
    let out = NEVER;
    for (const name of seg) out = union(out, kindSet(kind, [name, ...path.slice(from + 1)], value, from));
    return out;
  }
  const base = kind.bits & OBJECT ? kind : objectKind(new Map());
  const fields = new Map(base.bits & OBJECT ? base.fields : EMPTY_FIELDS);
  const cur = fields.get(seg) ?? base.fieldsUnknown ?? K_UNDEFINED;
  fields.set(seg, kindSet(cur, path, value, from + 1));
  return objectKind(fields, base.fieldsUnknown);
}

/** Kind after removing the value at path. */
export function kindRemove(kind: Kind, path: readonly KSeg[], from = 0): Kind {
  if (from >= path.length) return K_NULL;
  const seg = path[from]!;
  if (typeof seg === 'string' && kind.bits & OBJECT) {
    const fields = new Map(kind.fields);
    if (from === path.length - 1) fields.delete(seg);
    else {
      const cur = fields.get(seg);
      if (cur) fields.set(seg, kindRemove(cur, path, from + 1));
    }
    return new Kind(kind.bits, fields, kind.fieldsUnknown, kind.items, kind.itemsUnknown);
  }
  if (typeof seg === 'number' && kind.bits & ARRAY) {
    if (from === path.length - 1) return new Kind(kind.bits, kind.fields, kind.fieldsUnknown, EMPTY_ITEMS, unionAllItems(kind));
    const items = new Map(kind.items);
    const cur = items.get(seg);
    if (cur) items.set(seg, kindRemove(cur, path, from + 1));
    return new Kind(kind.bits, kind.fields, kind.fieldsUnknown, items, kind.itemsUnknown);
  }
  return kind;
}

function unionAllItems(kind: Kind): Kind | undefined {
  let u = kind.itemsUnknown;
  for (const v of kind.items.values()) u = unionOpt(u, v);
  return u;
}

/** Union of the kinds of every element (array items or object fields). */
export function elementKind(kind: Kind): Kind {
  if (kind === ANY) return ANY;
  let out = NEVER;
  if (kind.bits & ARRAY) {
    for (const v of kind.items.values()) out = union(out, v);
    if (kind.itemsUnknown) out = union(out, kind.itemsUnknown);
  }
  if (kind.bits & OBJECT) {
    for (const v of kind.fields.values()) out = union(out, v);
    if (kind.fieldsUnknown) out = union(out, kind.fieldsUnknown);
  }
  return out.bits === 0 ? ANY : out.without(UNDEFINED).bits === 0 ? ANY : out.without(UNDEFINED);
}

/** Replaces undefined by null recursively (values stored in containers are never undefined). */
export function undefinedToNull(kind: Kind): Kind {
  if (kind === ANY) return kind;
  if (!(kind.bits & UNDEFINED)) return kind;
  return kind.without(UNDEFINED).with(NULL);
}

/** Object kind of merging b into a (`a | b`). */
export function mergeObjects(a: Kind, b: Kind): Kind {
  if (!(a.bits & OBJECT) || !(b.bits & OBJECT)) return K_OBJECT;
  const fields = new Map(a.fields);
  for (const [key, v] of b.fields) fields.set(key, v);
  const fu = unionOpt(a.fieldsUnknown, b.fieldsUnknown);
  if (b.fieldsUnknown) for (const [key, v] of fields) if (!b.fields.has(key)) fields.set(key, union(v, b.fieldsUnknown));
  return objectKind(fields, fu);
}

const NAMES: [number, string][] = [
  [BYTES, 'string'],
  [INTEGER, 'integer'],
  [FLOAT, 'float'],
  [BOOLEAN, 'boolean'],
  [TIMESTAMP, 'timestamp'],
  [REGEX, 'regex'],
  [NULL, 'null'],
  [UNDEFINED, 'undefined'],
  [ARRAY, 'array'],
  [OBJECT, 'object'],
];

/** Human name of a kind set: `string`, `integer or float`, `any`. */
export function kindName(bits: number): string {
  if ((bits & ANY_VALUE) === ANY_VALUE) return 'any';
  if (bits === 0) return 'never';
  const parts = NAMES.filter(([b]) => bits & b).map(([, n]) => n);
  if (parts.length === 1) return parts[0]!;
  return parts.slice(0, -1).join(', ') + ' or ' + parts[parts.length - 1];
}

/** `any`, `the exact type string` or `one of string or null`, as VRL's diagnostics word it. */
export function kindPhrase(bits: number): string {
  if ((bits & ANY_VALUE) === ANY_VALUE) return 'any';
  const n = kindName(bits);
  return (bits & (bits - 1)) === 0 ? `the exact type ${n}` : `one of ${n}`;
}

/** Name of a single runtime value's kind, as error messages print it. */
export function valueKindName(v: Value): string {
  return kindName(valueBits(v));
}

/** The tree `type_def` returns: `{ "bytes": true, "object": {...} }`. */
export function kindDebug(kind: Kind, fallible = false): Value {
  const out: { [key: string]: Value } = {};
  debugInto(out, kind);
  if (fallible) out.fallible = true;
  return out;
}

/**
 * Any JSON value, as a kind made from the cyclic JSON kind (its unknown contents refer to
 * themselves) by a union that added nothing new: printing it field by field would never end.
 */
function isJsonLike(kind: Kind): boolean {
  const inner = kind.fieldsUnknown;
  if (inner === undefined || kind.fields.size > 0 || kind.items.size > 0 || kind.itemsUnknown !== inner) return false;
  return inner.fieldsUnknown === inner && inner.itemsUnknown === inner && (kind.bits & ~UNDEFINED) === inner.bits;
}

function debugInto(out: { [key: string]: Value }, kind: Kind): void {
  if (kind.bits === 0) {
    out.never = true;
    return;
  }
  if (kind.isAny) {
    out.any = true;
    return;
  }
  if (kind.fieldsUnknown === kind || kind.itemsUnknown === kind || isJsonLike(kind)) {
    out.json = true;
    return;
  }
  const flags: [number, string][] = [
    [BYTES, 'bytes'],
    [INTEGER, 'integer'],
    [FLOAT, 'float'],
    [BOOLEAN, 'boolean'],
    [TIMESTAMP, 'timestamp'],
    [REGEX, 'regex'],
    [NULL, 'null'],
    [UNDEFINED, 'undefined'],
  ];
  for (const [b, n] of flags) if (kind.bits & b) out[n] = true;
  if (kind.bits & OBJECT) {
    const o: { [key: string]: Value } = {};
    for (const [key, v] of kind.fields) {
      const t: { [key: string]: Value } = {};
      debugInto(t, v);
      o[key] = t;
    }
    out.object = o;
    if (kind.fieldsUnknown && kind.fieldsUnknown.bits !== UNDEFINED) {
      // an unknown field may always be absent: VRL prints it with undefined, as "infinite"
      const t: { [key: string]: Value } = {};
      debugInto(t, kind.fieldsUnknown.isAny ? kind.fieldsUnknown : union(kind.fieldsUnknown, K_UNDEFINED));
      out.object_unknown_infinite = t;
    }
  }
  if (kind.bits & ARRAY) {
    const o: { [key: string]: Value } = {};
    for (const [key, v] of [...kind.items].sort((x, y) => x[0] - y[0])) {
      const t: { [key: string]: Value } = {};
      debugInto(t, v);
      o[String(key)] = t;
    }
    out.array = o;
    if (kind.itemsUnknown && kind.itemsUnknown.bits !== UNDEFINED) {
      const t: { [key: string]: Value } = {};
      debugInto(t, kind.itemsUnknown.isAny ? kind.itemsUnknown : union(kind.itemsUnknown, K_UNDEFINED));
      out.array_unknown_infinite = t;
    }
  }
}
