/**
 * Field mergers of the reduce transform (Vector's strategies and defaults). One merger per field
 * path per open group; it is created from the first value seen and folds in later values.
 */
import { type Path, setPath } from '../../../lib/path.js';
import { Float, type ObjectValue, Timestamp, type Value, isObject } from '../../../lib/value.js';

/** The merge strategies Vector's `reduce` offers. */
export const MERGE_STRATEGIES = [
  'array',
  'concat',
  'concat_newline',
  'concat_raw',
  'discard',
  'flat_unique',
  'longest_array',
  'max',
  'min',
  'retain',
  'shortest_array',
  'sum',
] as const;
export type MergeStrategy = (typeof MERGE_STRATEGIES)[number];

/** Folds values of one field. `add` returns an error text when the value cannot be merged. */
export interface Merger {
  add(v: Value): string | undefined;
  /** Writes the merged result at `path` (and `<name>_end` for timestamp windows). */
  insertInto(fields: ObjectValue, path: Path): void;
}

function numeric(v: Value): number | undefined {
  if (typeof v === 'number') return v;
  if (v instanceof Float) return v.value;
  return undefined;
}
function kindName(v: Value): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'integer';
  if (typeof v === 'boolean') return 'boolean';
  if (v instanceof Float) return 'float';
  if (v instanceof Timestamp) return 'timestamp';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

class DiscardMerger implements Merger {
  constructor(private readonly v: Value) {}
  add(): undefined {
    return undefined;
  }
  insertInto(fields: ObjectValue, path: Path): void {
    setPath(fields, path, this.v);
  }
}

class RetainMerger implements Merger {
  constructor(private v: Value) {}
  add(v: Value): undefined {
    if (v !== null) this.v = v;
    return undefined;
  }
  insertInto(fields: ObjectValue, path: Path): void {
    setPath(fields, path, this.v);
  }
}

/** Sum: integers stay integers until a float joins, then the sum is a float. */
class SumMerger implements Merger {
  private sum: number;
  private isFloat: boolean;
  constructor(first: Value) {
    this.sum = numeric(first)!;
    this.isFloat = first instanceof Float;
  }
  add(v: Value): string | undefined {
    const n = numeric(v);
    if (n === undefined) return `expected a number, got ${kindName(v)}`;
    this.sum += n;
    if (v instanceof Float) this.isFloat = true;
    return undefined;
  }
  insertInto(fields: ObjectValue, path: Path): void {
    setPath(fields, path, this.isFloat ? new Float(this.sum) : this.sum);
  }
}

/** max/min: the extreme value; once a float was held the result stays a float (as Vector). */
class ExtremeMerger implements Merger {
  private n: number;
  private isFloat: boolean;
  constructor(
    first: Value,
    private readonly isMax: boolean,
  ) {
    this.n = numeric(first)!;
    this.isFloat = first instanceof Float;
  }
  add(v: Value): string | undefined {
    const n = numeric(v);
    if (n === undefined) return `expected a number, got ${kindName(v)}`;
    if (this.isMax ? n > this.n : n < this.n) {
      this.n = n;
      if (v instanceof Float) this.isFloat = true;
    }
    return undefined;
  }
  insertInto(fields: ObjectValue, path: Path): void {
    setPath(fields, path, this.isFloat ? new Float(this.n) : this.n);
  }
}

class ArrayMerger implements Merger {
  private readonly values: Value[];
  constructor(first: Value) {
    this.values = [first];
  }
  add(v: Value): undefined {
    this.values.push(v);
    return undefined;
  }
  insertInto(fields: ObjectValue, path: Path): void {
    setPath(fields, path, this.values);
  }
}

class ConcatMerger implements Merger {
  private readonly parts: string[];
  constructor(
    first: string,
    private readonly sep: string,
  ) {
    this.parts = [first];
  }
  add(v: Value): string | undefined {
    if (typeof v !== 'string') return `expected a string, got ${kindName(v)}`;
    this.parts.push(v);
    return undefined;
  }
  insertInto(fields: ObjectValue, path: Path): void {
    setPath(fields, path, this.parts.join(this.sep));
  }
}

/** concat starting from an array: arrays are spliced in, other values appended. */
class ConcatArrayMerger implements Merger {
  private readonly values: Value[];
  constructor(first: Value[]) {
    this.values = [...first];
  }
  add(v: Value): undefined {
    if (Array.isArray(v)) for (const x of v) this.values.push(x);
    else this.values.push(v);
    return undefined;
  }
  insertInto(fields: ObjectValue, path: Path): void {
    setPath(fields, path, this.values);
  }
}

/** Keeps the array that is strictly shorter (or longer) than the kept one. */
class ArrayLengthMerger implements Merger {
  constructor(
    private v: Value[],
    private readonly longest: boolean,
  ) {}
  add(v: Value): string | undefined {
    if (!Array.isArray(v)) return `expected an array, got ${kindName(v)}`;
    if (this.longest ? v.length > this.v.length : v.length < this.v.length) this.v = v;
    return undefined;
  }
  insertInto(fields: ObjectValue, path: Path): void {
    setPath(fields, path, this.v);
  }
}

/** Distinct values; arrays give their elements, objects their values (one level). */
class FlatUniqueMerger implements Merger {
  private readonly seen = new Map<string, Value>();
  constructor(first: Value) {
    this.add(first);
  }
  private put(v: Value): void {
    const k = valueKey(v);
    if (!this.seen.has(k)) this.seen.set(k, v);
  }
  add(v: Value): undefined {
    if (Array.isArray(v)) for (const x of v) this.put(x);
    else if (isObject(v)) for (const k in v) this.put(v[k]!);
    else this.put(v);
    return undefined;
  }
  insertInto(fields: ObjectValue, path: Path): void {
    setPath(fields, path, [...this.seen.values()]);
  }
}

/** Default for timestamps: keeps the first and writes the last one at `<name>_end`. */
class TimestampWindowMerger implements Merger {
  private last: Timestamp;
  constructor(private readonly first: Timestamp) {
    this.last = first;
  }
  add(v: Value): string | undefined {
    if (!(v instanceof Timestamp)) return `expected a timestamp, got ${kindName(v)}`;
    this.last = v;
    return undefined;
  }
  insertInto(fields: ObjectValue, path: Path): void {
    setPath(fields, path, this.first);
    const name = path[path.length - 1];
    if (typeof name === 'string') setPath(fields, [...path.slice(0, -1), `${name}_end`], this.last);
  }
}

/**
 * Creates the merger for a field from its first value; `strategy` undefined = the default merge
 * (numbers sum, timestamps window, everything else keeps the first). Returns an error text when
 * the strategy does not accept the first value (the field stays absent until a valid one comes).
 */
export function createMerger(strategy: MergeStrategy | undefined, first: Value): Merger | string {
  switch (strategy) {
    case undefined:
      if (numeric(first) !== undefined) return new SumMerger(first);
      if (first instanceof Timestamp) return new TimestampWindowMerger(first);
      return new DiscardMerger(first);
    case 'discard':
      return new DiscardMerger(first);
    case 'retain':
      return new RetainMerger(first);
    case 'sum':
      return numeric(first) !== undefined ? new SumMerger(first) : `sum needs a number, got ${kindName(first)}`;
    case 'max':
    case 'min':
      return numeric(first) !== undefined ? new ExtremeMerger(first, strategy === 'max') : `${strategy} needs a number, got ${kindName(first)}`;
    case 'array':
      return new ArrayMerger(first);
    case 'concat':
      if (typeof first === 'string') return new ConcatMerger(first, ' ');
      if (Array.isArray(first)) return new ConcatArrayMerger(first);
      return `concat needs a string or an array, got ${kindName(first)}`;
    case 'concat_newline':
    case 'concat_raw':
      if (typeof first === 'string') return new ConcatMerger(first, strategy === 'concat_raw' ? '' : '\n');
      return `${strategy} needs a string, got ${kindName(first)}`;
    case 'shortest_array':
    case 'longest_array':
      if (Array.isArray(first)) return new ArrayLengthMerger(first, strategy === 'longest_array');
      return `${strategy} needs an array, got ${kindName(first)}`;
    case 'flat_unique':
      return new FlatUniqueMerger(first);
  }
}

/**
 * A string identifying a value by kind and content (1 and 1.0 differ, absent differs from null);
 * used for group keys and flat_unique.
 */
export function valueKey(v: Value | undefined): string {
  if (v === undefined) return 'u';
  if (v === null) return 'n';
  switch (typeof v) {
    case 'string':
      return 's' + v;
    case 'number':
      return 'i' + v;
    case 'boolean':
      return v ? 'T' : 'F';
  }
  if (v instanceof Float) return 'f' + v.value;
  if (v instanceof Timestamp) return 't' + v.ms + '.' + v.ns;
  if (v instanceof RegExp) return 'r' + v.source;
  if (Array.isArray(v)) return 'a' + JSON.stringify(v.map(valueKey));
  return 'o' + JSON.stringify(Object.keys(v).sort().map((k) => [k, valueKey(v[k])]));
}
