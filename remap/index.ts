/**
 * The remap language (VRL-compatible): `compile(source)` type-checks a program once and returns a
 * {@link Program} whose `run` executes the compiled closures on one event.
 */
import type { Value } from '../lib/value.js';
import { Compiler, type ReadOnlyPath } from './compiler.js';
import { CompileError, Diagnostic, primary, secondary } from './diagnostic.js';
import type { FnDef } from './function.js';
import type { Kind } from './kind.js';
import { ParseFail, parseProgram } from './parser.js';
import { AbortSignal, Ctx, ReturnSignal, VrlError } from './runtime.js';
import { stdlib } from './stdlib/index.js';
import { unusedWarnings } from './unused.js';
import { resolveTimezone } from '../lib/time/strftime.js';
import { MAX_DECODED_BYTES, decoders } from './stdlib/encoding-compression.js';
import { type EnrichmentTables, enrichmentFunctions } from './stdlib/enrichment.js';
import { SECRET_FUNCTIONS, type Secrets, attachSecrets, secretsOf } from './stdlib/secrets.js';
import type { Expr } from './ast.js';

/** Diagnostics types and their VRL-style renderer. */
export { CompileError, type Diagnostic, formatDiagnostics } from './diagnostic.js';
/** Signature of a built-in function (for CompileOptions.functions). */
export type { FnDef } from './function.js';
/** Loaded enrichment tables (for CompileOptions.enrichmentTables). */
export type { EnrichmentTable, EnrichmentTables } from './stdlib/enrichment.js';

/** Options of compile(); all optional. */
export interface CompileOptions {
  /** Zone for functions that parse or format local times (`local`, IANA name); default UTC. */
  readonly timezone?: string;
  /** Extra functions next to the standard library. */
  readonly functions?: readonly FnDef[];
  /** Paths the program must not assign (E315). */
  readonly readOnly?: readonly ReadOnlyPath[];
  /** Known kind of the event before the program runs. */
  readonly targetKind?: Kind;
  /** Report unused expressions as warnings (E900); default true. */
  readonly unusedCheck?: boolean;
  /** Where the `log` function writes (the remap transform passes its component logger). */
  readonly log?: (level: string, message: string) => void;
  /** The global `max_decompressed_bytes`: decode_gzip and decode_zlib produce at most this many bytes, and never more than 16 MiB (`MAX_DECODED_BYTES`). */
  readonly maxDecompressedBytes?: number;
  /** Tables the enrichment functions search (the top-level `enrichment_tables`, loaded); default none. */
  readonly enrichmentTables?: EnrichmentTables;
}

/**
 * Outcome of one run. `target`/`meta` are the event and metadata after the program; `secrets` the
 * event's secrets after it, set only for programs that call a secret function.
 */
export type RunResult =
  | { readonly ok: true; readonly value: Value; readonly target: Value; readonly meta: Value; readonly secrets?: Secrets }
  | { readonly ok: false; readonly aborted: boolean; readonly error: string; readonly target: Value; readonly meta: Value; readonly secrets?: Secrets };

const NO_VARS: Value[] = [];

/** A compiled program; immutable and reusable across events. */
export class Program {
  constructor(
    private readonly exec: (ctx: Ctx) => Value,
    private readonly slots: number,
    /** Warnings found at compile time (e.g. `!` on an infallible call). */
    readonly warnings: readonly Diagnostic[],
    private readonly tz: string | undefined,
    readonly source: string,
    /** Kind of the program's result (the last expression). */
    readonly kind: Kind,
    /** Whether the program writes to or deletes from the event or its metadata. */
    readonly mutatesEvent: boolean,
    /** Whether the program can stop early (`abort`, `!` calls). */
    readonly abortable: boolean,
    private readonly log: ((level: string, message: string) => void) | undefined = undefined,
    /** Whether the program calls get_secret, set_secret or remove_secret. */
    readonly usesSecrets = false,
    /** Whether a run may fail after writing to the event or its metadata; when false a failed run leaves both unchanged. */
    readonly abortsAfterWrite = abortable,
  ) {}

  /** Runs on an event (mutated in place when it is an object), its metadata and its secrets (copied, never changed). */
  run(target: Value, meta: Value = {}, secrets?: ReadonlyMap<string, string>): RunResult {
    // a program without variables shares one empty slot array: no allocation per event for it
    const vars = this.slots === 0 ? NO_VARS : new Array<Value>(this.slots).fill(null);
    const ctx = new Ctx(target, meta, vars, this.tz, this.log);
    if (this.usesSecrets) return this.runWithSecrets(ctx, secrets);
    try {
      const value = this.exec(ctx);
      return { ok: true, value, target: ctx.target, meta: ctx.meta };
    } catch (x) {
      if (x instanceof ReturnSignal) return { ok: true, value: x.value, target: ctx.target, meta: ctx.meta };
      if (x instanceof AbortSignal) return { ok: false, aborted: true, error: x.message ?? 'aborted', target: ctx.target, meta: ctx.meta };
      if (x instanceof VrlError) return { ok: false, aborted: false, error: x.message, target: ctx.target, meta: ctx.meta };
      // a defect in a function must not take the pipeline down: it fails this run only
      return { ok: false, aborted: false, error: `internal error: ${(x as Error).message}`, target: ctx.target, meta: ctx.meta };
    }
  }

  private runWithSecrets(ctx: Ctx, secrets: ReadonlyMap<string, string> | undefined): RunResult {
    attachSecrets(ctx, secrets);
    try {
      const value = this.exec(ctx);
      return { ok: true, value, target: ctx.target, meta: ctx.meta, secrets: secretsOf(ctx) };
    } catch (x) {
      if (x instanceof ReturnSignal) return { ok: true, value: x.value, target: ctx.target, meta: ctx.meta, secrets: secretsOf(ctx) };
      if (x instanceof AbortSignal) return { ok: false, aborted: true, error: x.message ?? 'aborted', target: ctx.target, meta: ctx.meta };
      if (x instanceof VrlError) return { ok: false, aborted: false, error: x.message, target: ctx.target, meta: ctx.meta };
      return { ok: false, aborted: false, error: `internal error: ${(x as Error).message}`, target: ctx.target, meta: ctx.meta };
    }
  }
}

/** Calls of a function anywhere in the program, in source order (a walk over the syntax tree's plain nodes). */
function callsOf(exprs: readonly Expr[], name: string): (Expr & { k: 'call' })[] {
  const out: (Expr & { k: 'call' })[] = [];
  const stack: unknown[] = [...exprs].reverse();
  const seen = new Set<object>();
  while (stack.length > 0) {
    const x = stack.pop();
    if (x === null || typeof x !== 'object' || seen.has(x)) continue;
    seen.add(x);
    if (Array.isArray(x)) stack.push(...(x as unknown[]).slice().reverse());
    else if (Object.getPrototypeOf(x) === Object.prototype) {
      const node = x as Expr;
      if (node.k === 'call' && node.name === name) out.push(node);
      stack.push(...Object.values(node).reverse());
    }
  }
  return out;
}

const pathText = (q: Expr & { k: 'query' }): string =>
  (q.target.kind === 'meta' ? '%' : '.') +
  q.path.map((s, i) => ('index' in s ? `[${s.index}]` : `${i === 0 ? '' : '.'}${'field' in s ? s.field : `(${s.coalesce.join(' | ')})`}`)).join('');

/** VRL: one program may not give the same semantic meaning to two different fields. */
function semanticMeaningClash(exprs: readonly Expr[]): Diagnostic | undefined {
  const fields = new Map<string, string>();
  for (const call of callsOf(exprs, 'set_semantic_meaning')) {
    const arg = (name: string, at: number) => call.args.find((a) => a.name === name)?.expr ?? call.args.filter((a) => a.name === undefined)[at]?.expr;
    const target = arg('target', 0);
    const meaning = arg('meaning', 1);
    if (target?.k !== 'query' || meaning?.k !== 'lit' || typeof meaning.value !== 'string') continue;
    const path = pathText(target);
    const before = fields.get(meaning.value);
    if (before !== undefined && before !== path) {
      return new Diagnostic('error', 610, 'semantic meaning referencing two different fields', [
        primary(`semantic meaning "${meaning.value}" must reference a single field`, call.span),
        secondary(`already referencing field "${before}"`, call.span),
      ]);
    }
    fields.set(meaning.value, path);
  }
  return undefined;
}

/** Whether the program calls one of these functions anywhere (a walk over the syntax tree's plain nodes, each once). */
function callsAny(exprs: readonly Expr[], names: ReadonlySet<string>): boolean {
  const stack: unknown[] = [...exprs];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const x = stack.pop();
    if (x === null || typeof x !== 'object' || seen.has(x)) continue;
    seen.add(x);
    if (Array.isArray(x)) stack.push(...(x as unknown[]));
    // literal values (floats, timestamps, regexes) hold no calls
    else if (Object.getPrototypeOf(x) === Object.prototype) {
      const node = x as { k?: unknown; name?: unknown };
      if (node.k === 'call' && typeof node.name === 'string' && names.has(node.name)) return true;
      stack.push(...Object.values(node));
    }
  }
  return false;
}

let defaultFunctions: Map<string, FnDef> | undefined;
function functionsWith(extra?: readonly FnDef[]): Map<string, FnDef> {
  defaultFunctions ??= new Map(stdlib.map((f) => [f.name, f]));
  if (!extra || extra.length === 0) return defaultFunctions;
  const m = new Map(defaultFunctions);
  for (const f of extra) m.set(f.name, f);
  return m;
}

/** Names of every built-in function. */
export function functionNames(): string[] {
  return [...functionsWith().keys()].sort();
}

/**
 * The extra functions of a compile: decoders bound to its decompression cap when it has its own,
 * the enrichment functions bound to its tables when it has some.
 */
function withDecoders(options: CompileOptions): readonly FnDef[] | undefined {
  const cap = options.maxDecompressedBytes;
  const tables = options.enrichmentTables;
  // only a cap under the decoders' own needs decoders of its own
  const ownCap = cap !== undefined && cap < MAX_DECODED_BYTES;
  if (!ownCap && (tables === undefined || tables.size === 0)) return options.functions;
  return [...(ownCap ? decoders(cap) : []), ...(tables && tables.size > 0 ? enrichmentFunctions(tables) : []), ...(options.functions ?? [])];
}

/** Compiles a program; throws {@link CompileError} (with VRL diagnostics) when it is rejected. */
export function compile(source: string, options: CompileOptions = {}): Program {
  // an unknown zone is a configuration error, found before any event runs
  if (options.timezone !== undefined) resolveTimezone(options.timezone);
  let exprs;
  try {
    exprs = parseProgram(source);
  } catch (e) {
    if (e instanceof ParseFail) throw new CompileError([e.diagnostic], source);
    throw e;
  }
  const c = new Compiler(source, {
    functions: functionsWith(withDecoders(options)),
    ...(options.readOnly ? { readOnly: options.readOnly } : {}),
    ...(options.targetKind ? { targetKind: options.targetKind } : {}),
  });
  const prog = c.program(exprs);
  if (c.diags.length > 0) throw new CompileError(c.diags, source);
  const meaningClash = semanticMeaningClash(exprs);
  if (meaningClash) throw new CompileError([meaningClash], source);
  const warnings = options.unusedCheck === false ? prog.warnings : [...prog.warnings, ...unusedWarnings(source, exprs)];
  return new Program(prog.run, prog.slots, warnings, options.timezone, source, prog.kind, prog.mutatesExternal, prog.abortable, options.log, callsAny(exprs, SECRET_FUNCTIONS), prog.abortsAfterWrite);
}

