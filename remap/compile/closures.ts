/**
 * Compiles the closures of iterating functions (`for_each`, `map_values`, …): parameters typed
 * from the call's arguments, a body that handles its own errors, `return` as one of its results.
 */
import { cloneValue } from '../../lib/value.js';
import type { Closure, Expr } from '../ast.js';
import { primary, secondary } from '../diagnostic.js';
import type { ArgInfo, ClosureDecl } from '../function.js';
import * as K from '../kind.js';
import { type Kind, union } from '../kind.js';
import { ReturnSignal } from '../runtime.js';
import type { CompileContext } from './context.js';
import { block } from './control.js';
import { type ClosureRun, type Compiled, Scope, type TypeState } from './state.js';
import { isContainer } from './values.js';

/** Compiles the closure body with its parameters typed from the arguments (E120 arity, E122 result kind). */
export function compileClosure(cx: CompileContext, closure: Closure, decl: ClosureDecl, infos: readonly ArgInfo[], st: TypeState, sc: Scope): ClosureRun {
  const pre = cx.pending.length;
  if (closure.params.length !== decl.arity) {
    cx.fail(
      cx.err(120, 'function closure arity mismatch', [
        primary(`this function requires a closure with ${decl.arity} argument(s)`, closure.span),
        secondary(`but ${closure.params.length} argument(s) are supplied`, closure.span),
      ]),
    );
  }
  const kinds = decl.params(infos);
  const inner = new Scope(sc);
  const pslots = closure.params.map((p, i) => {
    const slot = cx.newSlot(p.name || `_closure${cx.slotNames.length}`, inner);
    st.locals.set(slot, kinds[i] ?? K.ANY);
    return slot;
  });
  const body = closureBody(cx, closure, st, inner);
  if (body.fallible) {
    // closures must handle their own errors
    const p = cx.pending.splice(pre);
    cx.diags.push(...p);
  }
  if (decl.returns !== undefined && body.kind.bits !== 0 && !body.kind.isOnly(decl.returns) && !body.kind.isNever) {
    cx.fail(
      cx.err(122, 'type mismatch in closure return type', [
        primary('block returns invalid value type', closure.body.span),
        secondary(`expected: ${K.kindName(decl.returns)}`, closure.body.span),
        secondary(`received: ${K.kindName(body.kind.bits)}`, closure.body.span),
      ]),
    );
  }
  const brun = body.run;
  // parameters alias the iterated container: copy them only when the body writes into them
  const copyParams = mutatesVars(new Set(closure.params.map((p) => p.name).filter(Boolean)), closure.body);
  return (ctx, vals) => {
    for (let i = 0; i < pslots.length; i++) {
      const v = vals[i] ?? null;
      ctx.vars[pslots[i]!] = copyParams && isContainer(v) ? cloneValue(v) : v;
    }
    try {
      return brun(ctx);
    } catch (x) {
      if (x instanceof ReturnSignal) return x.value;
      throw x;
    }
  };
}

/** The body, its kind joined with those of its `return`s; the type state after the call allows for any number of runs. */
function closureBody(cx: CompileContext, closure: Closure, st: TypeState, inner: Scope): Compiled {
  const bodyState = st.clone();
  const returns: Kind[] = [];
  cx.closureReturns.push(returns);
  let body: Compiled;
  const [writes, aborts] = [cx.writes, cx.aborts];
  try {
    body = block(cx, closure.body.exprs, bodyState, inner);
  } finally {
    cx.closureReturns.pop();
  }
  // a closure runs many times: an abort point in it may follow a write of an earlier run
  if (cx.writes > writes && cx.aborts > aborts) cx.abortsAfterWrite = true;
  // a `return` inside the closure is one of its results
  for (const r of returns) body = { ...body, kind: union(body.kind, r) };
  st.assignFrom(st.merge(bodyState));
  return body;
}

/** Whether an expression writes into (path assignment, `|=`, del) one of these variables. */
function mutatesVars(names: ReadonlySet<string>, e: Expr): boolean {
  if (names.size === 0) return false;
  const walk = (x: Expr | undefined): boolean => {
    if (!x) return false;
    switch (x.k) {
      case 'assign':
        for (const t of [x.target, x.err]) if (t?.kind === 'var' && names.has(t.name) && (t.path.length > 0 || x.merge)) return true;
        return walk(x.expr);
      case 'call':
        if (x.name === 'del' && x.args.some((a) => a.expr.k === 'query' && a.expr.target.kind === 'var' && names.has(a.expr.target.name))) return true;
        return x.args.some((a) => walk(a.expr)) || (x.closure !== undefined && walk(x.closure.body));
      case 'block':
        return x.exprs.some(walk);
      case 'group':
        return walk(x.expr);
      case 'if':
        return x.predicate.some(walk) || walk(x.then) || walk(x.else);
      case 'op':
        return walk(x.lhs) || walk(x.rhs);
      case 'not':
      case 'return':
        return walk(x.expr);
      case 'abort':
        return walk(x.message);
      case 'array':
        return x.items.some(walk);
      case 'object':
        return x.entries.some(([, v]) => walk(v));
      case 'query':
        return x.target.kind === 'expr' && walk(x.target.expr);
      default:
        return false;
    }
  };
  return walk(e);
}
