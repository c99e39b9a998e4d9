/**
 * What every part of the remap compiler shares while it compiles one program: the source, the
 * options, the diagnostics gathered so far, the variable slots and the program's traits. The
 * expression compilers (literals, queries, operators, assignment, control flow, calls, closures)
 * are functions of this context; the dispatcher over expression kinds implements `compileNode`.
 */
import type { Expr } from '../ast.js';
import { Diagnostic, ERROR_HANDLING_NOTE, type Label, type Span, codeNote, primary } from '../diagnostic.js';
import type { Kind } from '../kind.js';
import { type ArgKindMismatch, type Compiled, type CompilerOptions, type Scope, Skip, type TypeState } from './state.js';

/** The compiler's shared state and diagnostics plumbing; `expr` compiles any expression. */
export abstract class CompileContext {
  readonly diags: Diagnostic[] = [];
  readonly warnings: Diagnostic[] = [];
  /** Diagnostics of the root expression being compiled; a handled error (`??`, `err =`) truncates them. */
  pending: Diagnostic[] = [];
  /** Variable name of each slot, by slot number. */
  readonly slotNames: string[] = [];
  /** Variables whose assignment failed to compile: no "undefined variable" noise for them. */
  readonly skipVars = new Set<string>();
  /** Event/metadata paths whose assignment failed to compile: queries of them fail silently. */
  readonly skipQueries = new Set<string>();
  mutatesExternal = false;
  /** Kinds of `return` values inside the closures being compiled (innermost last). */
  readonly closureReturns: Kind[][] = [];
  abortable = false;
  /** Writes to the event or metadata and abort points compiled so far, in evaluation order outside closures. */
  writes = 0;
  aborts = 0;
  abortsAfterWrite = false;
  /** First argument of the last compiled call whose kind is not verifiably accepted. */
  lastArgKindError: ArgKindMismatch | undefined;

  constructor(
    readonly src: string,
    readonly opts: CompilerOptions,
  ) {}

  /** Compiles one expression node by its kind, without the unhandled-error check of `expr`. */
  protected abstract compileNode(e: Expr, st: TypeState, sc: Scope): Compiled;

  /** Compiles one expression; records an unhandled-error diagnostic for the outermost fallible one. */
  expr(e: Expr, st: TypeState, sc: Scope): Compiled {
    const pre = this.pending.length;
    const c = this.compileNode(e, st, sc);
    if (c.fallible && this.pending.length === pre) {
      this.pending.push(
        this.err(
          100,
          'unhandled error',
          [primary('expression can result in runtime error', e.span), primary('handle the error case to ensure runtime success', e.span)],
          [ERROR_HANDLING_NOTE, codeNote(100)],
        ),
      );
    }
    return c;
  }

  /** The program text under a span. */
  text(span: Span): string {
    return this.src.slice(span[0], span[1]);
  }

  /** An error diagnostic (not yet recorded). */
  err(code: number, message: string, labels: Label[], notes: string[] = []): Diagnostic {
    return new Diagnostic('error', code, message, labels, notes);
  }

  /** Records the diagnostic and stops compiling the current root expression. */
  fail(d: Diagnostic): never {
    this.diags.push(d);
    throw new Skip();
  }

  /** The program writes to the event or its metadata here. */
  noteWrite(): void {
    this.mutatesExternal = true;
    this.writes++;
  }

  /** The program can stop early here (`abort`, a `!` call). */
  noteAbort(): void {
    this.abortable = true;
    this.aborts++;
    if (this.writes > 0) this.abortsAfterWrite = true;
  }

  /** Binds a new variable slot to `name` in `scope`; returns the slot number. */
  newSlot(name: string, scope: Scope): number {
    const slot = this.slotNames.length;
    this.slotNames.push(name);
    scope.vars.set(name, slot);
    return slot;
  }
}
