/** Runtime access to paths (`.a.b[0]`, `.(a | b)`) in events, metadata and variables. */
import { type ObjectValue, type Value, isObject } from '../../lib/value.js';
import type { AssignTarget, Expr, Segment } from '../ast.js';
import type { KSeg } from '../kind.js';

/** A path segment as the kind algebra spells it: field name, index, or coalesced field names. */
export const toKSeg = (s: Segment): KSeg => ('field' in s ? s.field : 'index' in s ? s.index : s.coalesce);

/** Reads a segment; undefined when absent. */
function readSeg(v: Value | undefined, s: Segment): Value | undefined {
  if ('field' in s) {
    if (!isObject(v)) return undefined;
    return Object.prototype.hasOwnProperty.call(v, s.field) ? v[s.field] : undefined;
  }
  if ('index' in s) {
    if (!Array.isArray(v)) return undefined;
    return v[s.index < 0 ? v.length + s.index : s.index];
  }
  if (!isObject(v)) return undefined;
  for (const f of s.coalesce) {
    const x = Object.prototype.hasOwnProperty.call(v, f) ? v[f] : undefined;
    if (x !== undefined && x !== null) return x;
  }
  return undefined;
}

/** Reads a path; undefined when any segment is missing. */
export function readPath(v: Value, segs: readonly Segment[]): Value | undefined {
  let cur: Value | undefined = v;
  for (let i = 0; i < segs.length && cur !== undefined; i++) cur = readSeg(cur, segs[i]!);
  return cur;
}

/** Writes at path, creating containers; returns the (possibly new) holder. */
export function writePath(holder: Value | undefined, segs: readonly Segment[], i: number, v: Value): Value {
  if (i === segs.length) return v;
  const s = segs[i]!;
  if ('index' in s) {
    const arr: Value[] = Array.isArray(holder) ? holder : [];
    let idx = s.index;
    if (idx < 0) {
      idx += arr.length;
      if (idx < 0) {
        const pad: Value[] = new Array<Value>(-idx).fill(null);
        arr.unshift(...pad);
        idx = 0;
      }
    }
    while (arr.length < idx) arr.push(null);
    arr[idx] = writePath(idx < arr.length ? arr[idx] : undefined, segs, i + 1, v);
    return arr;
  }
  const obj: ObjectValue = isObject(holder) ? holder : {};
  let name: string;
  if ('field' in s) name = s.field;
  else name = s.coalesce.find((f) => obj[f] !== undefined && obj[f] !== null) ?? s.coalesce[s.coalesce.length - 1]!;
  const cur = Object.prototype.hasOwnProperty.call(obj, name) ? obj[name] : undefined;
  obj[name] = writePath(cur, segs, i + 1, v);
  return obj;
}

/** Removes the value at path (arrays close the gap); returns it or null. `compact` also removes parents left empty. */
export function removeAt(root: Value, segs: readonly Segment[], compact: boolean): Value {
  if (segs.length === 0) return null;
  const first = segs[0]!;
  if (segs.length === 1 && 'field' in first) {
    // hot path: a top-level field
    if (!isObject(root) || !Object.prototype.hasOwnProperty.call(root, first.field)) return null;
    const v = root[first.field]!;
    delete root[first.field];
    return v;
  }
  const parent = readPath(root, segs.slice(0, -1));
  const last = segs[segs.length - 1]!;
  let out: Value = null;
  if ('index' in last) {
    if (Array.isArray(parent)) {
      const idx = last.index < 0 ? parent.length + last.index : last.index;
      if (idx >= 0 && idx < parent.length) out = parent.splice(idx, 1)[0] ?? null;
    }
  } else if (isObject(parent)) {
    const names = 'field' in last ? [last.field] : last.coalesce;
    for (const n of names) {
      if (Object.prototype.hasOwnProperty.call(parent, n)) {
        out = parent[n]!;
        delete parent[n];
        break;
      }
    }
  }
  if (compact && segs.length > 1) {
    const p = readPath(root, segs.slice(0, -1));
    if ((isObject(p) && Object.keys(p).length === 0) || (Array.isArray(p) && p.length === 0)) removeAt(root, segs.slice(0, -1), true);
  }
  return out;
}

/** Identity of an event or metadata path, for the set of paths whose assignment failed to compile. */
export function queryKey(kind: string, path: readonly Segment[]): string {
  return kind + JSON.stringify(path);
}

/** The expression that reads an assignment target (the left operand of `|=`); `_` reads as null. */
export function targetToExpr(t: AssignTarget): Expr {
  if (t.kind === 'event' || t.kind === 'meta') return { k: 'query', target: { kind: t.kind }, path: t.path, span: t.span };
  if (t.kind === 'var') {
    if (t.path.length === 0) return { k: 'var', name: t.name, span: t.span };
    return { k: 'query', target: { kind: 'var', name: t.name, span: t.span }, path: t.path, span: t.span };
  }
  return { k: 'lit', value: null, span: t.span };
}
