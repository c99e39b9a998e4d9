/**
 * Compiles operators: the binary operators through a table keyed by operator (comparison,
 * arithmetic, division, object merge `|`; the logical and coalescing ones live in logical.ts) and
 * the boolean negation `!`. The left operand is compiled first, once, for every operator.
 */
import { Float, isObject } from '../../lib/value.js';
import type { Expr, Opcode } from '../ast.js';
import { COERCE_HINT, COERCE_NOTE, type Label, primary, secondary } from '../diagnostic.js';
import * as K from '../kind.js';
import type { Kind } from '../kind.js';
import { looseEquals, opAdd, opCompare, opDiv, opMerge, opMul, opSub } from '../runtime.js';
import type { CompileContext } from './context.js';
import { coalesceErrors, logicalAnd, logicalOr } from './logical.js';
import { type Left, type OpExpr, type OperatorCompiler, fallUnless, opResult } from './operands.js';
import { type Compiled, type Scope, Skip, type TypeState } from './state.js';
import { copying, needsCopy } from './values.js';

const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=']);

/** A binary operator; `inPlace`: the `|=` form, whose left side is the assignment target and may be updated in place. */
export function op(cx: CompileContext, e: OpExpr, st: TypeState, sc: Scope, inPlace = false): Compiled {
  const pre = cx.pending.length;
  if (COMPARISONS.has(e.op) && e.lhs.k === 'op' && COMPARISONS.has(e.lhs.op)) chainedComparison(cx, e, st, sc, pre);
  const lhs = cx.expr(e.lhs, st, sc);
  // an error-coalesced left side handles its own errors
  if (e.op === '??') cx.pending.length = pre;
  const left: Left = { e, lhs, pre, afterLhs: cx.pending.length, before: st.clone(), inPlace };
  return OPERATORS[e.op](cx, left, st, sc);
}

/** E650: `a < b < c`; the left chain is still checked for further errors. */
function chainedComparison(cx: CompileContext, e: OpExpr, st: TypeState, sc: Scope, pre: number): never {
  cx.diags.push(cx.err(650, "comparison operators can't be chained together", [primary('', e.opSpan)], ['see documentation about comparisons at https://vrl.dev/expressions/#comparison']));
  try {
    cx.expr(e.lhs, st.clone(), sc);
  } catch (x) {
    if (!(x instanceof Skip)) throw x;
  }
  cx.pending.length = pre;
  throw new Skip();
}

/** `==`, `!=`: any two values compare, never fails by itself. */
function equality(cx: CompileContext, l: Left, st: TypeState, sc: Scope): Compiled {
  const rhs = cx.expr(l.e.rhs, st, sc);
  const lrun = l.lhs.run;
  const rrun = rhs.run;
  const neg = l.e.op === '!=';
  return opResult(cx, l.pre, (ctx) => looseEquals(lrun(ctx), rrun(ctx)) !== neg, K.K_BOOLEAN, l.lhs.fallible || rhs.fallible);
}

/** `<`, `<=`, `>`, `>=`: numbers with numbers, strings with strings, timestamps with timestamps. */
function ordering(cx: CompileContext, l: Left, st: TypeState, sc: Scope): Compiled {
  const rhs = cx.expr(l.e.rhs, st, sc);
  const lrun = l.lhs.run;
  const rrun = rhs.run;
  const opcode = l.e.op;
  const lk = l.lhs.kind;
  const rk = rhs.kind;
  const ok = (lk.isOnly(K.BYTES) && rk.isOnly(K.BYTES)) || (lk.isOnly(K.TIMESTAMP) && rk.isOnly(K.TIMESTAMP));
  const fallible = l.lhs.fallible || rhs.fallible || (!ok && (fallUnless(lk, K.INTEGER | K.FLOAT) || fallUnless(rk, K.INTEGER | K.FLOAT)));
  return opResult(cx, l.pre, (ctx) => opCompare(lrun(ctx), rrun(ctx), opcode), K.K_BOOLEAN, fallible);
}

/** `|`: merges two objects (E652 when either side can never be one); `|=` merges into the target in place. */
function merge(cx: CompileContext, l: Left, st: TypeState, sc: Scope): Compiled {
  const { e, lhs } = l;
  const rhs = cx.expr(e.rhs, st, sc);
  const lrun = lhs.run;
  // a merged-in query is copied: the result must not share containers with its source
  const rrun = needsCopy(e.rhs, cx.opts.functions) ? copying(rhs.run) : rhs.run;
  const lk = lhs.kind;
  const rk = rhs.kind;
  const bad: Label[] = [];
  if (lk.bits !== 0 && !lk.has(K.OBJECT)) bad.push(primary('this expression must resolve to an object', e.lhs.span));
  if (rk.bits !== 0 && !rk.has(K.OBJECT)) bad.push(primary('this expression must resolve to an object', e.rhs.span));
  if (bad.length) {
    cx.pending.length = l.pre;
    cx.fail(cx.err(652, 'only objects can be merged', bad));
  }
  const fallible = lhs.fallible || rhs.fallible || (lk.bits !== 0 && !lk.isOnly(K.OBJECT)) || (rk.bits !== 0 && !rk.isOnly(K.OBJECT));
  const mergedKind = rk.bits === 0 ? lk : lk.bits === 0 ? rk : K.mergeObjects(lk, rk);
  if (l.inPlace) {
    return opResult(
      cx,
      l.pre,
      (ctx) => {
        const lv = lrun(ctx);
        const r = rrun(ctx);
        if (!isObject(lv) || !isObject(r)) return opMerge(lv, r);
        // the same assignments as a loop over r's fields, in V8's copying fast path
        return Object.assign(lv, r);
      },
      mergedKind,
      fallible,
    );
  }
  return opResult(cx, l.pre, (ctx) => opMerge(lrun(ctx), rrun(ctx)), mergedKind, fallible);
}

/** `/`: always a float; infallible only for a number divided by a non-zero finite literal. */
function divide(cx: CompileContext, l: Left, st: TypeState, sc: Scope): Compiled {
  const rhs = cx.expr(l.e.rhs, st, sc);
  const lrun = l.lhs.run;
  const rrun = rhs.run;
  const lk = l.lhs.kind;
  const rc = rhs.isConstant ? rhs.constant : undefined;
  const literalOk =
    (lk.isOnly(K.INTEGER) || lk.isOnly(K.FLOAT)) && ((typeof rc === 'number' && rc !== 0) || (rc instanceof Float && rc.value !== 0 && Number.isFinite(rc.value)));
  return opResult(cx, l.pre, (ctx) => opDiv(lrun(ctx), rrun(ctx)), K.K_FLOAT, l.lhs.fallible || rhs.fallible || !literalOk);
}

/** `+`, `-`, `*`: the result kind and fallibility follow the operand kinds the compiler can prove. */
function arithmetic(cx: CompileContext, l: Left, st: TypeState, sc: Scope): Compiled {
  const rhs = cx.expr(l.e.rhs, st, sc);
  const lrun = l.lhs.run;
  const rrun = rhs.run;
  const o = l.e.op;
  const fn = o === '+' ? opAdd : o === '-' ? opSub : opMul;
  const [kind, fallible] = arithmeticType(o, l.lhs.kind, rhs.kind, l.lhs.fallible || rhs.fallible);
  return opResult(cx, l.pre, (ctx) => fn(lrun(ctx), rrun(ctx)), kind, fallible);
}

/** Result kind and fallibility of `+`, `-`, `*` (`f`: an operand is fallible). */
function arithmeticType(o: Opcode, lk: Kind, rk: Kind, f: boolean): [Kind, boolean] {
  if (o === '+' && (lk.isOnly(K.BYTES) || rk.isOnly(K.BYTES))) return [K.K_BYTES, f || fallUnless(lk, K.BYTES | K.NULL) || fallUnless(rk, K.BYTES | K.NULL)];
  if (lk.isOnly(K.FLOAT) || rk.isOnly(K.FLOAT)) return [K.K_FLOAT, f || fallUnless(lk, K.INTEGER | K.FLOAT) || fallUnless(rk, K.INTEGER | K.FLOAT)];
  if (lk.isOnly(K.INTEGER) && rk.isOnly(K.INTEGER)) return [K.K_INTEGER, f];
  if (o === '*' && ((lk.isOnly(K.BYTES) && rk.isOnly(K.INTEGER)) || (lk.isOnly(K.INTEGER) && rk.isOnly(K.BYTES)))) return [K.K_BYTES, f];
  return [o === '-' ? K.k(K.INTEGER | K.FLOAT) : K.k(K.BYTES | K.INTEGER | K.FLOAT), true];
}

/** Each binary operator's compiler; `%` is not produced by the parser and compiles as the other arithmetic operators do. */
const OPERATORS: { readonly [O in Opcode]: OperatorCompiler } = {
  '??': coalesceErrors,
  '||': logicalOr,
  '&&': logicalAnd,
  '==': equality,
  '!=': equality,
  '<': ordering,
  '<=': ordering,
  '>': ordering,
  '>=': ordering,
  '|': merge,
  '/': divide,
  '+': arithmetic,
  '-': arithmetic,
  '*': arithmetic,
  '%': arithmetic,
};

/** `!expr`: the operand must be a boolean (E660). */
export function not(cx: CompileContext, e: Expr & { k: 'not' }, st: TypeState, sc: Scope): Compiled {
  const c = cx.expr(e.expr, st, sc);
  if (!c.kind.isOnly(K.BOOLEAN)) {
    cx.fail(
      cx.err(
        660,
        'non-boolean negation',
        [primary('negation only works on boolean values', e.bangSpan), secondary(`this expression resolves to ${K.kindName(c.kind.bits)}`, e.expr.span)],
        [COERCE_HINT, COERCE_NOTE],
      ),
    );
  }
  const r = c.run;
  return { run: (ctx) => !r(ctx), kind: K.K_BOOLEAN, fallible: c.fallible, isConstant: false };
}
