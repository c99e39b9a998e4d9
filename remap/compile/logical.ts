/**
 * Compiles the short-circuiting operators: error coalescing `??`, `||` and `&&`. The right operand
 * may not run, so the type state after them is the merge of "it ran" and "it did not".
 */
import { primary, secondary } from '../diagnostic.js';
import * as K from '../kind.js';
import { union } from '../kind.js';
import { VrlError, isFalsy, opAnd } from '../runtime.js';
import type { CompileContext } from './context.js';
import { type Left, fallUnless, opResult } from './operands.js';
import type { Compiled, Scope, TypeState } from './state.js';

/** `a ?? b`: b's value when a fails; E651 when a cannot fail. */
export function coalesceErrors(cx: CompileContext, l: Left, st: TypeState, sc: Scope): Compiled {
  const { e, lhs } = l;
  const rhs = cx.expr(e.rhs, st, sc);
  st.assignFrom(l.before.merge(st));
  if (!lhs.fallible) {
    cx.pending.length = l.pre;
    cx.fail(
      cx.err(651, 'unnecessary error coalescing operation', [
        primary("this expression can't fail", e.lhs.span),
        secondary('remove this error coalescing operation', e.opSpan),
        secondary('this expression never resolves', e.rhs.span),
      ]),
    );
  }
  const lrun = lhs.run;
  const rrun = rhs.run;
  return opResult(
    cx,
    l.pre,
    (ctx) => {
      try {
        return lrun(ctx);
      } catch (x) {
        if (x instanceof VrlError) return rrun(ctx);
        throw x;
      }
    },
    union(lhs.kind, rhs.kind),
    lhs.fallible && rhs.fallible,
  );
}

/** `a || b`: a unless it is null or false; the kind is narrowed when a is known to be always or never falsy. */
export function logicalOr(cx: CompileContext, l: Left, st: TypeState, sc: Scope): Compiled {
  const { e, lhs } = l;
  const lk = lhs.kind;
  const lconst = lhs.isConstant ? lhs.constant : undefined;
  const lrun = lhs.run;
  if (lk.isOnly(K.NULL) || lconst === false) {
    const rhs = cx.expr(e.rhs, st, sc);
    const rrun = rhs.run;
    return opResult(cx, l.pre, (ctx) => (isFalsy(lrun(ctx)) ? rrun(ctx) : lrun(ctx)), rhs.kind, lhs.fallible || rhs.fallible);
  }
  if (!lk.has(K.NULL | K.BOOLEAN) || lconst === true) {
    const sub = st.clone();
    const rhs = cx.expr(e.rhs, sub, sc);
    const rrun = rhs.run;
    // the right side never runs: its fallibility does not count
    cx.pending.length = l.afterLhs;
    return opResult(cx, l.pre, orRun(lrun, rrun), lk, lhs.fallible);
  }
  const rhs = cx.expr(e.rhs, st, sc);
  st.assignFrom(l.before.merge(st));
  const rrun = rhs.run;
  return opResult(cx, l.pre, orRun(lrun, rrun), union(lk.without(K.NULL), rhs.kind), lhs.fallible || rhs.fallible);
}

/** The run of `a || b`: a's value unless it is falsy, then b's (b runs only then). */
function orRun(lrun: Compiled['run'], rrun: Compiled['run']): Compiled['run'] {
  return (ctx) => {
    const lv = lrun(ctx);
    return isFalsy(lv) ? rrun(ctx) : lv;
  };
}

/** `a && b`: a boolean; false without running b when a is known to be null or false. */
export function logicalAnd(cx: CompileContext, l: Left, st: TypeState, sc: Scope): Compiled {
  const { e, lhs } = l;
  const lk = lhs.kind;
  const lconst = lhs.isConstant ? lhs.constant : undefined;
  const lrun = lhs.run;
  if (lk.isOnly(K.NULL) || lconst === false) {
    const sub = st.clone();
    cx.expr(e.rhs, sub, sc);
    return opResult(cx, l.pre, () => false, K.K_BOOLEAN, lhs.fallible && false);
  }
  if (lconst === true) {
    const rhs = cx.expr(e.rhs, st, sc);
    const rrun = rhs.run;
    return opResult(cx, l.pre, (ctx) => opAnd(lrun(ctx), () => rrun(ctx)), K.K_BOOLEAN, rhs.fallible || fallUnless(rhs.kind, K.NULL | K.BOOLEAN));
  }
  const rhs = cx.expr(e.rhs, st, sc);
  st.assignFrom(l.before.merge(st));
  const rrun = rhs.run;
  const fallible = lhs.fallible || fallUnless(lk, K.NULL | K.BOOLEAN) || rhs.fallible || fallUnless(rhs.kind, K.NULL | K.BOOLEAN);
  return opResult(cx, l.pre, (ctx) => opAnd(lrun(ctx), () => rrun(ctx)), K.K_BOOLEAN, fallible);
}
