/**
 * Type checker and code generator in one pass (as VRL's compiler): every expression is compiled
 * against the type state before it, yields a closure `(ctx) => Value` plus its kind and
 * fallibility, and updates the state. Compile-time rejections are VRL's (E100, E103, E630, ...).
 *
 * This file is the entry point and the dispatcher: a table maps each expression kind to its
 * compiler in compile/ (literals, queries, operators, assignment, control flow, calls, closures).
 * Dispatch happens once per node at compile time; the closures that run per event call each other
 * directly.
 */
import type { Expr } from './ast.js';
import * as K from './kind.js';
import type { Kind } from './kind.js';
import { assign } from './compile/assignment.js';
import { call } from './compile/calls.js';
import { CompileContext } from './compile/context.js';
import { abort, blockExpr, group, ifExpr, returnExpr } from './compile/control.js';
import { array, literal, object, template } from './compile/literals.js';
import { not, op } from './compile/operators.js';
import { query, variable } from './compile/queries.js';
import { type Compiled, type CompiledProgram, type Run, Scope, Skip, TypeState } from './compile/state.js';
import { sequence } from './compile/values.js';

/** Path reads and writes on values (a missing segment reads as undefined; writes create containers). */
export { readPath, writePath } from './compile/paths.js';
/** Compile-time kinds of the event, the metadata and the variables. */
export { TypeState } from './compile/state.js';
/** The compiler's options and output, and the shape of a compiled closure. */
export type { CompiledProgram, CompilerOptions, ReadOnlyPath, Run } from './compile/state.js';

/** Compiles one node of a given expression kind. */
type NodeCompiler<E extends Expr> = (cx: CompileContext, e: E, st: TypeState, sc: Scope) => Compiled;

/** The compiler of each expression kind. */
const NODES: { readonly [Kd in Expr['k']]: NodeCompiler<Expr & { k: Kd }> } = {
  lit: literal,
  template,
  array,
  object,
  block: blockExpr,
  group,
  if: ifExpr,
  op: (cx, e, st, sc) => op(cx, e, st, sc),
  not,
  assign,
  query,
  var: (cx, e, st, sc) => variable(cx, e.name, e.span, st, sc),
  call,
  abort,
  return: returnExpr,
};

/** Compiles root expressions; collects every diagnostic rather than stopping at the first. */
export class Compiler extends CompileContext {
  /** Compiles the root expressions; diagnostics accumulate in `diags`. */
  program(exprs: readonly Expr[]): CompiledProgram {
    const st = new TypeState(this.opts.targetKind ?? K.K_OBJECT, K.K_OBJECT, new Map());
    const scope = new Scope();
    const runs: Run[] = [];
    let kind: Kind = K.K_NULL;
    for (const e of exprs) {
      this.pending = [];
      try {
        const c = this.expr(e, st, scope);
        runs.push(c.run);
        kind = c.kind;
      } catch (x) {
        if (!(x instanceof Skip)) throw x;
      }
      this.diags.push(...this.pending);
    }
    const run = sequence(runs);
    return { run, slots: this.slotNames.length, kind, warnings: this.warnings, mutatesExternal: this.mutatesExternal, abortable: this.abortable, abortsAfterWrite: this.abortsAfterWrite };
  }

  /** One table lookup per node, at compile time only. */
  protected override compileNode(e: Expr, st: TypeState, sc: Scope): Compiled {
    return (NODES[e.k] as NodeCompiler<Expr>)(this, e, st, sc);
  }
}
