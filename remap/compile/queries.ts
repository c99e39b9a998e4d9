/** Compiles reads: variables and path queries of the event, the metadata, a variable or an expression. */
import { type Value, cloneValue, isObject } from '../../lib/value.js';
import type { Span } from '../diagnostic.js';
import { primary } from '../diagnostic.js';
import type { QueryRef } from '../function.js';
import * as K from '../kind.js';
import { type Kind, kindAt } from '../kind.js';
import type { Ctx } from '../runtime.js';
import type { CompileContext } from './context.js';
import { suggest } from './hints.js';
import { queryKey, readPath, removeAt, toKSeg, writePath } from './paths.js';
import { type Compiled, type QueryExpr, type Run, type Scope, Skip, type TypeState } from './state.js';

/** A variable read; E701, with the closest name, when it is not defined. A variable known to hold a literal is a constant. */
export function variable(cx: CompileContext, name: string, span: Span, st: TypeState, sc: Scope): Compiled {
  const slot = sc.lookup(name);
  if (slot === undefined) {
    if (cx.skipVars.has(name)) throw new Skip();
    const guess = suggest(name, [...sc.names(), 'null', 'true', 'false']);
    const labels = [primary('undefined variable', span)];
    if (guess !== undefined) labels.push(primary(`did you mean "${guess}"?`, span));
    cx.fail(cx.err(701, 'call to undefined variable', labels));
  }
  const kind = st.locals.get(slot) ?? K.K_NULL;
  const c = st.consts.get(slot);
  if (c !== undefined) return { run: (ctx) => ctx.vars[slot]!, kind, fallible: false, constant: c, isConstant: true };
  return { run: (ctx) => ctx.vars[slot]!, kind, fallible: false, isConstant: false };
}

/** A path query; a missing value reads as null. One top-level field has its own closure (the common case). */
export function query(cx: CompileContext, e: QueryExpr, st: TypeState, sc: Scope): Compiled {
  const segs = e.path;
  const t = e.target;
  if ((t.kind === 'event' || t.kind === 'meta') && cx.skipQueries.has(queryKey(t.kind, segs))) throw new Skip();
  const { base, get, fallible } = queryRoot(cx, e, st, sc);
  const kind = segs.length === 0 ? base : kindAt(base, segs.map(toKSeg));
  if (segs.length === 0) return { run: get, kind, fallible, isConstant: false };
  if (segs.length === 1 && 'field' in segs[0]!) {
    const f = segs[0].field;
    return {
      run: (ctx) => {
        const v = get(ctx);
        if (!isObject(v)) return null;
        const x = v[f];
        return x === undefined || !Object.prototype.hasOwnProperty.call(v, f) ? null : x;
      },
      kind,
      fallible,
      isConstant: false,
    };
  }
  return { run: (ctx) => readPath(get(ctx), segs) ?? null, kind, fallible, isConstant: false };
}

/** Where a query starts: the root's kind, the run that reads it and whether that can fail. */
function queryRoot(cx: CompileContext, e: QueryExpr, st: TypeState, sc: Scope): { base: Kind; get: Run; fallible: boolean } {
  const t = e.target;
  if (t.kind === 'event') return { base: st.target, get: (ctx) => ctx.target, fallible: false };
  if (t.kind === 'meta') return { base: st.meta, get: (ctx) => ctx.meta, fallible: false };
  if (t.kind === 'var') {
    const v = variable(cx, t.name, t.span, st, sc);
    return { base: v.kind, get: v.run, fallible: false };
  }
  const c = cx.expr(t.expr, st, sc);
  return { base: c.kind, get: c.run, fallible: c.fallible };
}

/** A path handed to a function as a reference (`del(.a)`, `exists(.b)`): reads, removes and rewrites in place. */
export function queryRef(cx: CompileContext, q: QueryExpr, sc: Scope, st: TypeState): QueryRef {
  const segs = q.path;
  const t = q.target;
  let root: Run;
  let replaceRoot: ((ctx: Ctx, v: Value) => void) | undefined;
  if (t.kind === 'var') {
    const slot = sc.lookup(t.name)!;
    root = (ctx) => ctx.vars[slot]!;
    replaceRoot = (ctx, v) => void (ctx.vars[slot] = v);
  } else if (t.kind === 'meta') {
    root = (ctx) => ctx.meta;
    replaceRoot = (ctx, v) => void (ctx.meta = v);
  } else if (t.kind === 'event') {
    root = (ctx) => ctx.target;
    replaceRoot = (ctx, v) => void (ctx.target = v);
  } else {
    root = cx.expr(t.expr, st.clone(), sc).run;
  }
  const external = t.kind === 'event' || t.kind === 'meta';
  return {
    isRoot: segs.length === 0,
    isExternal: external,
    root,
    withValue: (r, v) => writePath(cloneValue(r), segs, 0, v),
    get: (ctx) => readPath(root(ctx), segs) ?? null,
    exists: (ctx) => readPath(root(ctx), segs) !== undefined,
    remove: (ctx, compact) => {
      if (segs.length === 0) {
        const v = root(ctx);
        replaceRoot?.(ctx, null);
        return v;
      }
      return removeAt(root(ctx), segs, compact);
    },
  };
}
