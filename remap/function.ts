/**
 * How a standard-library function declares itself: parameters with accepted kinds, fallibility,
 * return kind, optional closure, and the implementation that runs per call.
 */
import type { Value } from '../lib/value.js';
import type { KSeg, Kind } from './kind.js';
import type { Ctx } from './runtime.js';

/** One declared parameter: name, accepted kinds, whether required or a path query. */
export interface Param {
  readonly name: string;
  /** Accepted kinds (bit set from kind.ts). */
  readonly kind: number;
  readonly required?: boolean;
  /** The argument must be a path query (`del(.a)`, `exists(.a)`); the call receives a {@link QueryRef}. */
  readonly query?: boolean;
  /** Value used when the argument is omitted, as remap source text (function reference only). */
  readonly default?: string;
}

/** What the compiler knows about one argument. */
export interface ArgInfo {
  readonly present: boolean;
  readonly kind: Kind;
  /** Set when the argument is a literal (or a container of literals). */
  readonly constant?: Value;
  readonly isConstant: boolean;
  /** The argument's type definition was fallible (only type_def cares). */
  readonly fallible: boolean;
  /** For path arguments: kind of the path's root and the path itself. */
  readonly rootKind?: Kind;
  readonly path?: readonly KSeg[];
  /** For path arguments: `event`, `meta`, `var` (with its name) or `expr`, where the path starts. */
  readonly root?: { readonly kind: 'event' | 'meta' | 'var' | 'expr'; readonly name?: string };
}

/** A path argument: reads, removes or tests the value in place. */
export interface QueryRef {
  get(ctx: Ctx): Value;
  exists(ctx: Ctx): boolean;
  remove(ctx: Ctx, compact: boolean): Value;
  /** The value the path starts from (event, metadata, variable or expression result). */
  root(ctx: Ctx): Value;
  /** A copy of `root` with `v` written at the path. */
  withValue(root: Value, v: Value): Value;
  /** Whether the path is the root of the event/metadata (`.`, `%`). */
  readonly isRoot: boolean;
  readonly isExternal: boolean;
}

/** Passed to implementations on each call. */
export interface CallEnv {
  readonly ctx: Ctx;
  /** Runs the closure with these parameter values; returns its result. */
  readonly closure: ((...params: Value[]) => Value) | undefined;
  /** What `prepare` returned at compile time. */
  readonly prepared: unknown;
}

/** Thrown from `prepare` when static arguments are invalid (E610 / E403). */
export class FunctionCompileError extends Error {
  constructor(
    message: string,
    readonly argName?: string,
    readonly received?: string,
  ) {
    super(message);
  }
}

/** The closure a function takes: parameter kinds, arity and required result kinds. */
export interface ClosureDecl {
  /** Kinds of the closure parameters, given the arguments. */
  readonly params: (args: readonly ArgInfo[]) => Kind[];
  /** Minimum / maximum number of parameters the closure may declare. */
  readonly arity: number;
  /** Kinds the closure must return (bit set); undefined = any. */
  readonly returns?: number;
}

/** A built-in function: signature, fallibility, result kind and implementation. */
export interface FnDef {
  readonly name: string;
  /** One line on what the function returns or does, for `weir vrl --functions` and the function reference. */
  readonly description?: string;
  readonly params: readonly Param[];
  /** Whether the call can fail for valid argument kinds. */
  readonly fallible?: boolean | ((args: readonly ArgInfo[]) => boolean);
  readonly returns: Kind | ((args: readonly ArgInfo[]) => Kind);
  readonly closure?: ClosureDecl;
  /** Compile-time validation / precomputation over the arguments; may throw FunctionCompileError. */
  readonly prepare?: (args: readonly ArgInfo[]) => unknown;
  /** `args` follow `params` order; undefined for an omitted optional argument. */
  readonly call: (args: (Value | undefined)[], env: CallEnv) => Value;
  /** The result never shares containers with the arguments (parsers): assignments skip the copy. */
  readonly fresh?: boolean;
  /** Arguments are only type-checked, never evaluated; the result is what `prepare` returned. */
  readonly noEval?: boolean;
  /** Purity: false for now(), uuid_v4() & co (never folded). */
  readonly impure?: boolean;
  /** Programs showing the function, with their results, for the function reference. */
  readonly examples?: readonly { readonly source: string; readonly result: string }[];
}

/** Declares a built-in function; unlike extra functions passed to compile(), it must describe itself. */
export const defineFunction = (d: FnDef & { readonly description: string }): FnDef => d;
