/** Compiles control flow: blocks and groups, `if`/`else`, `abort` and `return`. */
import type { Expr } from '../ast.js';
import { COERCE_HINT, COERCE_NOTE, Diagnostic, ERROR_HANDLING_NOTE, type Span, codeNote, primary } from '../diagnostic.js';
import * as K from '../kind.js';
import { union } from '../kind.js';
import { AbortSignal, ReturnSignal } from '../runtime.js';
import type { CompileContext } from './context.js';
import { type Compiled, type Run, Scope, Skip, type TypeState } from './state.js';
import { sequence } from './values.js';

/** Expressions in order, in the given scope: the last one's value and kind; fallible if any is. */
export function block(cx: CompileContext, exprs: readonly Expr[], st: TypeState, sc: Scope): Compiled {
  const cs = exprs.map((x) => cx.expr(x, st, sc));
  const runs = cs.map((c) => c.run);
  const last = cs[cs.length - 1]!;
  const fallible = cs.some((c) => c.fallible);
  const run = sequence(runs);
  return { run, kind: last.kind, fallible, isConstant: false };
}

/** A `{ … }` block expression, in a scope of its own. */
export function blockExpr(cx: CompileContext, e: Expr & { k: 'block' }, st: TypeState, sc: Scope): Compiled {
  const inner = new Scope(sc);
  try {
    return block(cx, e.exprs, st, inner);
  } catch (x) {
    // a block that fails to compile leaves its variables defined (as VRL does): no follow-up noise
    if (x instanceof Skip) for (const [n, slot] of inner.vars) if (!sc.lookup(n)) sc.vars.set(n, slot);
    throw x;
  }
}

/** `( … )`: a parenthesised block shares the enclosing scope. */
export function group(cx: CompileContext, e: Expr & { k: 'group' }, st: TypeState, sc: Scope): Compiled {
  if (e.expr.k === 'block') return block(cx, e.expr.exprs, st, sc);
  return cx.expr(e.expr, st, sc);
}

/** An `if` predicate: infallible (E100/E110 become errors of their own) and boolean (E102). */
function predicate(cx: CompileContext, exprs: readonly Expr[], span: Span, st: TypeState, sc: Scope): Run {
  const pre = cx.pending.length;
  const cs = exprs.map((x) => cx.expr(x, st, sc));
  const fallibility = cx.pending[pre];
  cx.pending.length = pre;
  if (fallibility) {
    cx.fail(new Diagnostic('error', fallibility.code, fallibility.code === 100 ? 'unhandled error' : 'fallible predicate', fallibility.labels, fallibility.notes));
  }
  const last = cs[cs.length - 1]!;
  if (!last.kind.isOnly(K.BOOLEAN)) {
    cx.fail(
      cx.err(
        102,
        'non-boolean predicate',
        [primary('this predicate must resolve to a boolean', span), primary(`instead it resolves to ${K.kindName(last.kind.bits)}`, span)],
        [COERCE_HINT, 'see documentation about if expressions at https://vrl.dev/expressions/#if', codeNote(102)],
      ),
    );
  }
  return sequence(cs.map((c) => c.run));
}

/** `if`/`else`: the type state after it is the merge of both branches (or of the branch and the predicate). */
export function ifExpr(cx: CompileContext, e: Expr & { k: 'if' }, st: TypeState, sc: Scope): Compiled {
  const pred = predicate(cx, e.predicate, e.predicateSpan, st, sc);
  const afterPred = st.clone();
  const thenC = block(cx, e.then.exprs, st, new Scope(sc));
  const thenState = st.clone();
  let elseC: Compiled | undefined;
  if (e.else) {
    st.assignFrom(afterPred.clone());
    elseC = block(cx, e.else.exprs, st, new Scope(sc));
    st.assignFrom(thenState.merge(st));
  } else st.assignFrom(thenState.merge(afterPred));
  const thenRun = thenC.run;
  const elseRun = elseC?.run;
  const kind = union(thenC.kind, elseC ? elseC.kind : K.K_NULL);
  const fallible = thenC.fallible || (elseC?.fallible ?? false);
  return {
    run: elseRun ? (ctx) => (pred(ctx) === true ? thenRun(ctx) : elseRun(ctx)) : (ctx) => (pred(ctx) === true ? thenRun(ctx) : null),
    kind,
    fallible,
    isConstant: false,
  };
}

/** `abort` with an optional message: infallible (E631) and a string (E113). */
export function abort(cx: CompileContext, e: Expr & { k: 'abort' }, st: TypeState, sc: Scope): Compiled {
  cx.noteAbort();
  const span = e.span;
  if (!e.message) {
    return {
      run: () => {
        throw new AbortSignal(undefined, span);
      },
      kind: K.NEVER,
      fallible: false,
      isConstant: false,
    };
  }
  const pre = cx.pending.length;
  const c = cx.expr(e.message, st, sc);
  cx.pending.length = pre;
  if (c.fallible) {
    cx.fail(
      cx.err(
        631,
        'unhandled fallible expression',
        [primary('abort only accepts an infallible expression argument', e.message.span), primary('handle errors before using the expression as an abort message', e.message.span)],
        [ERROR_HANDLING_NOTE],
      ),
    );
  }
  if (!c.kind.isOnly(K.BYTES) && c.kind.bits !== 0) {
    cx.fail(
      cx.err(
        113,
        'non-string abort message',
        [primary('abort only accepts an expression argument resolving to a string', e.message.span), primary(`this expression resolves to ${K.kindName(c.kind.bits)}`, e.message.span)],
        [COERCE_HINT, COERCE_NOTE],
      ),
    );
  }
  const r = c.run;
  return {
    run: (ctx) => {
      const m = r(ctx);
      throw new AbortSignal(typeof m === 'string' ? m : undefined, span);
    },
    kind: K.NEVER,
    fallible: false,
    isConstant: false,
  };
}

/** `return expr`: ends the program or the enclosing closure, whose result kinds it joins. */
export function returnExpr(cx: CompileContext, e: Expr & { k: 'return' }, st: TypeState, sc: Scope): Compiled {
  const pre = cx.pending.length;
  const c = cx.expr(e.expr, st, sc);
  cx.pending.length = pre;
  cx.closureReturns[cx.closureReturns.length - 1]?.push(c.kind);
  const run = c.run;
  return {
    run: (ctx) => {
      throw new ReturnSignal(run(ctx));
    },
    kind: K.NEVER,
    fallible: false,
    isConstant: false,
  };
}
