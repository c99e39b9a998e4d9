/** What every binary operator's compiler starts from: the operator with its left operand compiled. */
import type { Expr } from '../ast.js';
import type { Kind } from '../kind.js';
import type { CompileContext } from './context.js';
import type { Compiled, Run, Scope, TypeState } from './state.js';

/** A binary operator expression. */
export type OpExpr = Expr & { k: 'op' };

/** A binary operator with its left operand compiled: what each operator's compiler starts from. */
export interface Left {
  readonly e: OpExpr;
  readonly lhs: Compiled;
  /** Length of the pending diagnostics before the operator, and after its left operand. */
  readonly pre: number;
  readonly afterLhs: number;
  /** Type state after the left operand (the right one may not run). */
  readonly before: TypeState;
  /** The `|=` form: the left side is the assignment target and may be updated in place. */
  readonly inPlace: boolean;
}

/** Compiles one binary operator from its compiled left operand. */
export type OperatorCompiler = (cx: CompileContext, l: Left, st: TypeState, sc: Scope) => Compiled;

/** The compiled operator; an infallible one drops the diagnostics its operands left pending. */
export function opResult(cx: CompileContext, pre: number, run: Run, kind: Kind, fallible: boolean): Compiled {
  if (!fallible) cx.pending.length = pre;
  return { run, kind, fallible, isConstant: false };
}

/** Whether an operand of this kind can hold something outside `bits` (an operand of no kind cannot). */
export const fallUnless = (kind: Kind, bits: number): boolean => !kind.isOnly(bits) && !(kind.bits === 0);
