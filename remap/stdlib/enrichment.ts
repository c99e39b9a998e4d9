/**
 * find_enrichment_table_records and get_enrichment_table_record: rows of the configured enrichment
 * tables that match a condition, with Vector's semantics: every condition must hold (AND); a value
 * is an exact match (`case_sensitive: false` lowers both strings), an object with `from` and/or `to`
 * a date range (inclusive) on a timestamp column; `wildcard` is a value that matches too, looked up
 * only when no row matches the values themselves; `select` keeps those columns. The table must be
 * named by a literal of a loaded table, and the exact-match fields must be its columns, both checked
 * when the program compiles.
 */
import { Float, type ObjectValue, type Value, Timestamp, isObject, valueEquals } from '../../lib/value.js';
import { type ArgInfo, type FnDef, FunctionCompileError, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fail } from './errors.js';

/** A loaded enrichment table: columns in file order and rows of values in the same order. */
export interface EnrichmentTable {
  readonly headers: readonly string[];
  readonly rows: readonly (readonly Value[])[];
}

/** Loaded tables by name (the keys of the top-level `enrichment_tables`). */
export type EnrichmentTables = ReadonlyMap<string, EnrichmentTable>;

type Condition =
  | { readonly kind: 'equals'; readonly column: number; readonly value: Value }
  | { readonly kind: 'dates'; readonly column: number; readonly from: Timestamp | undefined; readonly to: Timestamp | undefined };

interface Prepared {
  readonly table: EnrichmentTable;
  readonly caseSensitive: boolean;
}

const PARAMS = [
  { name: 'table', kind: K.BYTES, required: true },
  { name: 'condition', kind: K.OBJECT, required: true },
  { name: 'select', kind: K.ARRAY },
  { name: 'case_sensitive', kind: K.BOOLEAN, default: 'true' },
  { name: 'wildcard', kind: K.BYTES },
] as const;

const isRange = (k: K.Kind): boolean => k.isOnly(K.OBJECT) && (k.fields.has('from') || k.fields.has('to'));

function prepare(tables: EnrichmentTables) {
  return (args: readonly ArgInfo[]): Prepared => {
    const [name, condition, , caseArg] = args as [ArgInfo, ArgInfo, ArgInfo, ArgInfo];
    const known = [...tables.keys()].sort();
    if (!name.isConstant || typeof name.constant !== 'string') throw new FunctionCompileError(`expected a literal table name, one of: ${known.join(', ') || '(no enrichment tables loaded)'}`, 'table');
    const table = tables.get(name.constant);
    if (!table) throw new FunctionCompileError(`invalid enum variant; loaded enrichment tables: ${known.join(', ') || 'none'}`, 'table', JSON.stringify(name.constant));
    let caseSensitive = true;
    if (caseArg.present) {
      if (!caseArg.isConstant || typeof caseArg.constant !== 'boolean') throw new FunctionCompileError('expected a literal boolean', 'case_sensitive');
      caseSensitive = caseArg.constant;
    }
    // the exact-match fields index the table in Vector: they must be columns
    const kind = condition.kind;
    const exact = [...kind.fields].filter(([, k]) => !isRange(k)).map(([f]) => f);
    const missing = exact.filter((f) => !table.headers.includes(f));
    if (missing.length > 0) throw new FunctionCompileError(`Field(s) '${missing.join(', ')}' missing from dataset`, 'condition');
    return { table, caseSensitive };
  };
}

function timestampAt(range: ObjectValue, key: 'from' | 'to'): Timestamp | undefined {
  if (!(key in range)) return undefined;
  const t = range[key];
  return t instanceof Timestamp ? t : fail(`${key} in condition must be a timestamp`);
}

function conditionsOf(table: EnrichmentTable, condition: ObjectValue): Condition[] {
  const out: Condition[] = [];
  for (const field of Object.keys(condition)) {
    const value = condition[field]!;
    // a column the table lacks matches no row
    const column = table.headers.indexOf(field);
    if (isObject(value) && ('from' in value || 'to' in value)) out.push({ kind: 'dates', column, from: timestampAt(value, 'from'), to: timestampAt(value, 'to') });
    else out.push({ kind: 'equals', column, value });
  }
  return out;
}

function same(a: Value, b: Value, caseSensitive: boolean): boolean {
  if (!caseSensitive && typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase();
  return valueEquals(a, b);
}

const compareTs = (a: Timestamp, b: Timestamp): number => a.ms - b.ms || a.ns - b.ns;

/** Whether the row meets every condition; an exact match also accepts `wildcard` when given. */
function rowMatches(row: readonly Value[], conditions: readonly Condition[], caseSensitive: boolean, wildcard: Value | undefined): boolean {
  for (const c of conditions) {
    if (c.column < 0) return false;
    const cell = row[c.column]!;
    if (c.kind === 'equals') {
      if (!same(cell, c.value, caseSensitive) && (wildcard === undefined || !same(cell, wildcard, caseSensitive))) return false;
    } else {
      if (!(cell instanceof Timestamp)) return false;
      if (c.from && compareTs(c.from, cell) > 0) return false;
      if (c.to && compareTs(cell, c.to) > 0) return false;
    }
  }
  return true;
}

/** Text of a scalar that equals another's exactly when the values are equal (lower-cased strings when not case-sensitive). */
function keyPart(v: Value, caseSensitive: boolean): string | undefined {
  if (typeof v === 'string') return 's' + (caseSensitive ? v : v.toLowerCase());
  if (typeof v === 'number') return 'i' + v;
  if (typeof v === 'boolean') return v ? 'T' : 'F';
  if (v === null) return 'n';
  if (v instanceof Float) return 'f' + v.value;
  if (v instanceof Timestamp) return `t${v.ms}.${v.ns}`;
  return undefined;
}

/** Row numbers by the key of some columns; a row with an unkeyable cell is in no entry. */
type Index = Map<string, number[]>;
const indexes = new WeakMap<EnrichmentTable, Map<string, Index>>();

/** The index of these columns (ascending) in this case mode, built on first use: Vector's add_index. */
function indexOf(table: EnrichmentTable, columns: readonly number[], caseSensitive: boolean): Index {
  let byColumns = indexes.get(table);
  if (!byColumns) indexes.set(table, (byColumns = new Map()));
  const name = `${caseSensitive ? 'S' : 'I'}${columns.join(',')}`;
  let index = byColumns.get(name);
  if (index) return index;
  index = new Map();
  table.rows.forEach((row, r) => {
    const key = keyOf(columns.map((c) => row[c]!), caseSensitive);
    if (key === undefined) return;
    const rows = index!.get(key);
    if (rows) rows.push(r);
    else index!.set(key, [r]);
  });
  byColumns.set(name, index);
  return index;
}

function keyOf(values: readonly Value[], caseSensitive: boolean): string | undefined {
  let key = '';
  for (const v of values) {
    const part = keyPart(v, caseSensitive);
    if (part === undefined) return undefined;
    key += part + '\u0000';
  }
  return key;
}

/**
 * Rows whose exact-match fields hold the condition's values, or, when there are none and a
 * wildcard is given, the wildcard in every such field (Vector's indexed lookup).
 */
function candidateRows(table: EnrichmentTable, conditions: readonly Condition[], caseSensitive: boolean, wildcard: Value | undefined): readonly (readonly Value[])[] {
  const exact = conditions.filter((c): c is Condition & { kind: 'equals' } => c.kind === 'equals').sort((a, b) => a.column - b.column);
  if (exact.length === 0) return table.rows;
  const index = indexOf(table, exact.map((c) => c.column), caseSensitive);
  const lookup = (values: readonly Value[]) => {
    const key = keyOf(values, caseSensitive);
    // a container value: no index entry can equal it, so scan
    if (key === undefined) return table.rows.filter((row) => exact.every((c, i) => same(row[c.column]!, values[i]!, caseSensitive)));
    return (index.get(key) ?? []).map((r) => table.rows[r]!);
  };
  const rows = lookup(exact.map((c) => c.value));
  if (rows.length > 0 || wildcard === undefined) return rows;
  return lookup(exact.map(() => wildcard));
}

function selectedColumns(table: EnrichmentTable, select: Value | undefined): boolean[] {
  if (select === undefined || select === null) return table.headers.map(() => true);
  const names = (select as Value[]).map((s) => (typeof s === 'string' ? s : fail(`expected string in select, got ${K.valueKindName(s)}`)));
  return table.headers.map((h) => names.includes(h));
}

/** The matching rows as objects of the selected columns. */
function findRows(p: Prepared, condition: ObjectValue, select: Value | undefined, wildcard: Value | undefined): ObjectValue[] {
  const { table, caseSensitive } = p;
  const conditions = conditionsOf(table, condition);
  // a field the table lacks matches no row
  if (conditions.some((c) => c.column < 0)) return [];
  const candidates = candidateRows(table, conditions, caseSensitive, wildcard);
  const keep = selectedColumns(table, select);
  const out: ObjectValue[] = [];
  for (const row of candidates) {
    if (!rowMatches(row, conditions, caseSensitive, wildcard)) continue;
    const o: ObjectValue = {};
    for (let i = 0; i < table.headers.length; i++) if (keep[i]) o[table.headers[i]!] = row[i]!;
    out.push(o);
  }
  return out;
}

const wildcardOf = (w: Value | undefined): Value | undefined => (w === undefined || w === null ? undefined : w);

/** The two functions, bound to these tables (the standard library's copies know none). */
export function enrichmentFunctions(tables: EnrichmentTables): FnDef[] {
  return [
    defineFunction({
      name: 'find_enrichment_table_records',
      description: 'Rows of an enrichment table that match a condition, as an array of objects.',
      params: PARAMS,
      fallible: true,
      fresh: true,
      returns: K.arrayOf(K.K_OBJECT),
      prepare: prepare(tables),
      call: ([, condition, select, , wildcard], env) => findRows(env.prepared as Prepared, condition as ObjectValue, select, wildcardOf(wildcard)),
    }),
    defineFunction({
      name: 'get_enrichment_table_record',
      description: 'The one row of an enrichment table that matches a condition; an error when none or several do.',
      params: PARAMS,
      fallible: true,
      fresh: true,
      returns: K.K_OBJECT,
      prepare: prepare(tables),
      call: ([, condition, select, , wildcard], env) => {
        const rows = findRows(env.prepared as Prepared, condition as ObjectValue, select, wildcardOf(wildcard));
        if (rows.length === 0) return fail('No rows found');
        if (rows.length > 1) return fail('More than one row found');
        return rows[0]!;
      },
    }),
  ];
}

/** The standard library's entries: without `enrichment_tables` no table name is valid. */
export const enrichmentTableFunctions: readonly FnDef[] = enrichmentFunctions(new Map());
