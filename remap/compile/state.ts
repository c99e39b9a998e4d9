/**
 * Shared shapes of the remap compiler: a compiled expression, the compile-time type state, lexical
 * scopes and what the compiler takes and returns.
 */
import { type Value, valueEquals } from '../../lib/value.js';
import type { Expr } from '../ast.js';
import type { Diagnostic, Span } from '../diagnostic.js';
import type { FnDef } from '../function.js';
import { type Kind, union } from '../kind.js';
import type { Ctx } from '../runtime.js';

/** A compiled expression: evaluates against one run's context; throws VrlError/AbortSignal/ReturnSignal. */
export type Run = (ctx: Ctx) => Value;

/** Result of compiling one expression. */
export interface Compiled {
  readonly run: Run;
  readonly kind: Kind;
  readonly fallible: boolean;
  /** Literal value (constant folding of literals only). */
  readonly constant?: Value;
  readonly isConstant: boolean;
}

/** A call expression. */
export type CallExpr = Expr & { k: 'call' };
/** A path query expression (`.a.b`, `%m`, `x.y`, `f().z`). */
export type QueryExpr = Expr & { k: 'query' };

/** A compiled closure: binds its parameters to these values and runs the body. */
export type ClosureRun = (ctx: Ctx, vals: Value[]) => Value;

/** The first argument of a call whose kind the compiler could not prove accepted (for E103's hint). */
export interface ArgKindMismatch {
  readonly span: Span;
  readonly param: string;
  readonly want: number;
  readonly got: number;
}

/** Compile-time type state: kinds of the event, the metadata and every variable slot. */
export class TypeState {
  constructor(
    public target: Kind,
    public meta: Kind,
    public locals: Map<number, Kind>,
    /** Variables known to hold a literal value (VRL resolves them as constants). */
    public consts: Map<number, Value> = new Map(),
  ) {}
  clone(): TypeState {
    return new TypeState(this.target, this.meta, new Map(this.locals), new Map(this.consts));
  }
  /** State after either this or other ran. */
  merge(other: TypeState): TypeState {
    const locals = new Map(this.locals);
    for (const [slot, kd] of other.locals) {
      const mine = locals.get(slot);
      locals.set(slot, mine ? union(mine, kd) : kd);
    }
    const consts = new Map<number, Value>();
    for (const [slot, v] of this.consts) {
      const o = other.consts.get(slot);
      if (o !== undefined && valueEquals(o, v)) consts.set(slot, v);
    }
    return new TypeState(union(this.target, other.target), union(this.meta, other.meta), locals, consts);
  }
  assignFrom(other: TypeState): void {
    this.target = other.target;
    this.meta = other.meta;
    this.locals = other.locals;
    this.consts = other.consts;
  }
}

/** Variable names visible at one point of the program, each bound to its slot; inner scopes see outer ones. */
export class Scope {
  readonly vars = new Map<string, number>();
  constructor(readonly parent?: Scope) {}
  lookup(name: string): number | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const v = s.vars.get(name);
      if (v !== undefined) return v;
    }
    return undefined;
  }
  names(): string[] {
    const out: string[] = [];
    for (let s: Scope | undefined = this; s; s = s.parent) out.push(...s.vars.keys());
    return out;
  }
}

/** Stops compiling the current root expression (a diagnostic was recorded). */
export class Skip extends Error {}

/** A path the program may not assign (E315); `recursive` also protects everything below it. */
export interface ReadOnlyPath {
  readonly meta: boolean;
  readonly path: readonly (string | number)[];
  readonly recursive: boolean;
}

/** What the compiler needs besides the source: the function table and optional restrictions. */
export interface CompilerOptions {
  readonly functions: ReadonlyMap<string, FnDef>;
  readonly readOnly?: readonly ReadOnlyPath[];
  /** Kind of the event before the program runs; default: an object of anything. */
  readonly targetKind?: Kind;
}

/** The compiler's output: the root closure, slot count, result kind and program traits. */
export interface CompiledProgram {
  readonly run: (ctx: Ctx) => Value;
  readonly slots: number;
  readonly kind: Kind;
  readonly warnings: Diagnostic[];
  /** The program assigns to or deletes from the event or its metadata. */
  readonly mutatesExternal: boolean;
  /** The program can stop early: `abort` or a `!` call. */
  readonly abortable: boolean;
  /** It may stop early after it wrote to the event or its metadata (else a failed run leaves them as they were). */
  readonly abortsAfterWrite: boolean;
}
