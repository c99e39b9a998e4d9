/**
 * Relay-style connections with filters and sorting (as in Vector's API): items are filtered, then
 * sorted, then sliced by `after`/`before`/`first`/`last`; 10 items when neither `first` nor `last`
 * is given. Cursors are `Cursor:<index>` in base64url without padding.
 */

/** The pagination arguments every connection field takes. */
export interface PageArgs {
  readonly after?: string | null;
  readonly before?: string | null;
  readonly first?: number | null;
  readonly last?: number | null;
}

/** A `*Connection` object of the schema. */
export interface Connection<T> {
  readonly pageInfo: { hasPreviousPage: boolean; hasNextPage: boolean; startCursor: string | null; endCursor: string | null };
  readonly edges: { cursor: string; node: T }[];
  readonly nodes: T[];
  readonly totalCount: number;
}

const DEFAULT_PAGE = 10;

/** `Cursor:<index>` as base64url without padding. */
export const encodeCursor = (index: number): string => Buffer.from(`Cursor:${index}`).toString('base64url');

/** The index a cursor names; an error for anything else. */
export function decodeCursor(cursor: string): number {
  const m = /^Cursor:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!m) throw new Error(`invalid cursor "${cursor}"`);
  return Number(m[1]);
}

/** Slices already filtered and sorted items into a connection. */
export function connection<T>(items: readonly T[], args: PageArgs): Connection<T> {
  const total = items.length;
  if ((args.first ?? 0) < 0 || (args.last ?? 0) < 0) throw new Error('first and last must not be negative');
  let start = args.after != null ? Math.min(decodeCursor(args.after) + 1, total) : 0;
  let end = args.before != null ? Math.min(decodeCursor(args.before), total) : total;
  if (end < start) end = start;
  if (args.first != null) end = Math.min(start + args.first, end);
  else if (args.last != null) start = Math.max(end - args.last, start);
  else end = Math.min(start + DEFAULT_PAGE, end);
  const edges = items.slice(start, end).map((node, i) => ({ cursor: encodeCursor(start + i), node }));
  return {
    pageInfo: {
      hasPreviousPage: start > 0,
      hasNextPage: end < total,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
    edges,
    nodes: edges.map((e) => e.node),
    totalCount: total,
  };
}

/** The schema's `StringFilter` input. */
export interface StringFilter {
  equals?: string | null;
  notEquals?: string | null;
  contains?: string | null;
  notContains?: string | null;
  startsWith?: string | null;
  endsWith?: string | null;
}

/** Every operation given must hold. */
export function stringMatches(f: StringFilter, s: string): boolean {
  return (
    (f.equals == null || s === f.equals) &&
    (f.notEquals == null || s !== f.notEquals) &&
    (f.contains == null || s.includes(f.contains)) &&
    (f.notContains == null || !s.includes(f.notContains)) &&
    (f.startsWith == null || s.startsWith(f.startsWith)) &&
    (f.endsWith == null || s.endsWith(f.endsWith))
  );
}

/** Equality filters over an enum (`ComponentKindFilter`). */
export function enumMatches<E>(f: { equals?: E | null; notEquals?: E | null }, v: E): boolean {
  return (f.equals == null || v === f.equals) && (f.notEquals == null || v !== f.notEquals);
}

/** Set filters over a list of enum values (`SourceOutputTypeFilter`). */
export function setMatches<E>(f: { equals?: E[] | null; notEquals?: E[] | null; contains?: E | null; notContains?: E | null }, vs: readonly E[]): boolean {
  const eq = (want: E[]) => new Set(want).size === new Set(vs).size && want.every((x) => vs.includes(x));
  return (f.equals == null || eq(f.equals)) && (f.notEquals == null || !eq(f.notEquals)) && (f.contains == null || vs.includes(f.contains)) && (f.notContains == null || !vs.includes(f.notContains));
}

/** A filter object: each field's list must all match (AND); `or` entries are alternatives to the whole object. */
export function filterMatches<F extends { or?: F[] | null }, T>(filter: F | null | undefined, item: T, own: (f: F, item: T) => boolean): boolean {
  if (!filter) return true;
  if (own(filter, item)) return true;
  return (filter.or ?? []).some((f) => filterMatches(f, item, own));
}

/** Sort direction of a `*SortField`. */
export type Direction = 'ASC' | 'DESC';

/** Sorts by each field in turn until one differs. */
export function sortBy<T, K extends string>(items: T[], sort: readonly { field: K; direction?: Direction | null }[] | null | undefined, key: (item: T, field: K) => string | number): T[] {
  if (!sort || sort.length === 0) return items;
  return items.sort((a, b) => {
    for (const s of sort) {
      const x = key(a, s.field);
      const y = key(b, s.field);
      if (x === y) continue;
      const c = x < y ? -1 : 1;
      return s.direction === 'DESC' ? -c : c;
    }
    return 0;
  });
}
