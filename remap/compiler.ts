/**
 * Type checker and code generator in one pass (as VRL's compiler): every expression is compiled
 * against the type state before it, yields a closure `(ctx) => Value` plus its kind and
 * fallibility, and updates the state. Compile-time rejections are VRL's (E100, E103, E630, ...).
 */
import { type ObjectValue, type Value, Float, Timestamp, cloneValue, isObject, valueEquals } from '../lib/value.js';
import type { AssignTarget, Closure, Expr, Segment } from './ast.js';
import {
  COERCE_HINT,
  COERCE_NOTE,
  Diagnostic,
  ERROR_HANDLING_NOTE,
  type Label,
  type Span,
  codeNote,
  primary,
  secondary,
} from './diagnostic.js';
import { type ArgInfo, type CallEnv, type ClosureDecl, type FnDef, FunctionCompileError, type Param, type QueryRef } from './function.js';
import * as K from './kind.js';
import { type Kind, type KSeg, kindAt, kindSet, union } from './kind.js';
import { VrlRegex } from './regex.js';
import {
  AbortSignal,
  Ctx,
  ReturnSignal,
  VrlError,
  isFalsy,
  looseEquals,
  opAdd,
  opAnd,
  opCompare,
  opDiv,
  opMerge,
  opMul,
  opSub,
} from './runtime.js';

/** A compiled expression: evaluates against one run's context; throws VrlError/AbortSignal/ReturnSignal. */
export type Run = (ctx: Ctx) => Value;

/** Result of compiling one expression. */
interface C {
  readonly run: Run;
  readonly kind: Kind;
  readonly fallible: boolean;
  /** Literal value (constant folding of literals only). */
  readonly constant?: Value;
  readonly isConstant: boolean;
}

type CallExpr = Expr & { k: 'call' };
type QueryExpr = Expr & { k: 'query' };

/** An argument bound to its parameter; undefined when omitted. */
type ArgSlot = { readonly expr: Expr; readonly span: Span } | undefined;

/** The first argument of a call whose kind the compiler could not prove accepted (for E103's hint). */
interface ArgKindMismatch {
  readonly span: Span;
  readonly param: string;
  readonly want: number;
  readonly got: number;
}

/** A call's compiled arguments, one entry per parameter. */
interface CompiledArgs {
  readonly infos: readonly ArgInfo[];
  /** Evaluates a value argument; undefined for omitted and path arguments. */
  readonly runs: readonly (Run | undefined)[];
  /** Path arguments, handed to the function as references. */
  readonly queries: readonly (QueryRef | undefined)[];
  /** Kinds to check at run time where some of the argument's kinds are not accepted. */
  readonly checks: readonly (number | undefined)[];
  /** E110 of the first such argument: it makes the call fallible. */
  readonly typeFallible: Diagnostic | undefined;
  readonly kindMismatch: ArgKindMismatch | undefined;
}

/** A compiled closure: binds its parameters to these values and runs the body. */
type ClosureRun = (ctx: Ctx, vals: Value[]) => Value;

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

class Scope {
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
class Skip extends Error {}

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

const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=']);

const toKSeg = (s: Segment): KSeg => ('field' in s ? s.field : 'index' in s ? s.index : s.coalesce);

/** Reads a segment; undefined when absent. */
function readSeg(v: Value | undefined, s: Segment): Value | undefined {
  if ('field' in s) {
    if (!isObject(v)) return undefined;
    return Object.prototype.hasOwnProperty.call(v, s.field) ? v[s.field] : undefined;
  }
  if ('index' in s) {
    if (!Array.isArray(v)) return undefined;
    return v[s.index < 0 ? v.length + s.index : s.index];
  }
  if (!isObject(v)) return undefined;
  for (const f of s.coalesce) {
    const x = Object.prototype.hasOwnProperty.call(v, f) ? v[f] : undefined;
    if (x !== undefined && x !== null) return x;
  }
  return undefined;
}

/** Reads a path; undefined when any segment is missing. */
export function readPath(v: Value, segs: readonly Segment[]): Value | undefined {
  let cur: Value | undefined = v;
  for (let i = 0; i < segs.length && cur !== undefined; i++) cur = readSeg(cur, segs[i]!);
  return cur;
}

/** Writes at path, creating containers; returns the (possibly new) holder. */
export function writePath(holder: Value | undefined, segs: readonly Segment[], i: number, v: Value): Value {
  if (i === segs.length) return v;
  const s = segs[i]!;
  if ('index' in s) {
    const arr: Value[] = Array.isArray(holder) ? holder : [];
    let idx = s.index;
    if (idx < 0) {
      idx += arr.length;
      if (idx < 0) {
        const pad: Value[] = new Array<Value>(-idx).fill(null);
        arr.unshift(...pad);
        idx = 0;
      }
    }
    while (arr.length < idx) arr.push(null);
    arr[idx] = writePath(idx < arr.length ? arr[idx] : undefined, segs, i + 1, v);
    return arr;
  }
  const obj: ObjectValue = isObject(holder) ? holder : {};
  let name: string;
  if ('field' in s) name = s.field;
  else name = s.coalesce.find((f) => obj[f] !== undefined && obj[f] !== null) ?? s.coalesce[s.coalesce.length - 1]!;
  const cur = Object.prototype.hasOwnProperty.call(obj, name) ? obj[name] : undefined;
  obj[name] = writePath(cur, segs, i + 1, v);
  return obj;
}

/** Removes the value at path (arrays close the gap); returns it or null. */
function removeAt(root: Value, segs: readonly Segment[], compact: boolean): Value {
  if (segs.length === 0) return null;
  const first = segs[0]!;
  if (segs.length === 1 && 'field' in first) {
    // hot path: a top-level field
    if (!isObject(root) || !Object.prototype.hasOwnProperty.call(root, first.field)) return null;
    const v = root[first.field]!;
    delete root[first.field];
    return v;
  }
  const parent = readPath(root, segs.slice(0, -1));
  const last = segs[segs.length - 1]!;
  let out: Value = null;
  if ('index' in last) {
    if (Array.isArray(parent)) {
      const idx = last.index < 0 ? parent.length + last.index : last.index;
      if (idx >= 0 && idx < parent.length) out = parent.splice(idx, 1)[0] ?? null;
    }
  } else if (isObject(parent)) {
    const names = 'field' in last ? [last.field] : last.coalesce;
    for (const n of names) {
      if (Object.prototype.hasOwnProperty.call(parent, n)) {
        out = parent[n]!;
        delete parent[n];
        break;
      }
    }
  }
  if (compact && segs.length > 1) {
    const p = readPath(root, segs.slice(0, -1));
    if ((isObject(p) && Object.keys(p).length === 0) || (Array.isArray(p) && p.length === 0)) removeAt(root, segs.slice(0, -1), true);
  }
  return out;
}

function defaultOf(kind: Kind): Value {
  switch (kind.bits) {
    case K.BYTES:
      return '';
    case K.INTEGER:
      return 0;
    case K.FLOAT:
      return new Float(0);
    case K.BOOLEAN:
      return false;
    case K.OBJECT:
      return {};
    case K.ARRAY:
      return [];
    case K.TIMESTAMP:
      return new Timestamp(0, 0);
    default:
      return null;
  }
}

const isContainer = (v: Value): boolean => typeof v === 'object' && v !== null && (Array.isArray(v) || isObject(v));

/** Levenshtein distance for "did you mean" hints. */
function distance(a: string, b: string): number {
  const d: number[] = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!;
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = d[j]!;
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return d[b.length]!;
}

function suggest(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const dd = distance(name, c);
    if (dd < bestD) {
      bestD = dd;
      best = c;
    }
  }
  return best;
}

/** Byte offsets, as VRL reports spans in runtime errors. */
function byteOffset(src: string, i: number): number {
  return Buffer.byteLength(src.slice(0, i), 'utf8');
}

const COERCERS: Record<number, [string, string, string]> = {
  [K.BYTES]: ['string', 'to_string', '"default"'],
  [K.INTEGER]: ['int', 'to_int', '0'],
  [K.FLOAT]: ['float', 'to_float', '0'],
  [K.BOOLEAN]: ['bool', 'to_bool', 'false'],
  [K.OBJECT]: ['object', '', ''],
  [K.ARRAY]: ['array', '', ''],
  [K.TIMESTAMP]: ['timestamp', 'to_unix_timestamp', 'now()'],
};

/** Compiles root expressions; collects every diagnostic rather than stopping at the first. */
export class Compiler {
  readonly diags: Diagnostic[] = [];
  readonly warnings: Diagnostic[] = [];
  private pending: Diagnostic[] = [];
  private slotNames: string[] = [];
  /** Variables whose assignment failed to compile: no "undefined variable" noise for them. */
  private skipVars = new Set<string>();
  /** Event/metadata paths whose assignment failed to compile: queries of them fail silently. */
  private skipQueries = new Set<string>();
  private mutatesExternal = false;
  /** Kinds of `return` values inside the closures being compiled (innermost last). */
  private closureReturns: Kind[][] = [];
  private abortable = false;
  /** Writes to the event or metadata and abort points compiled so far, in evaluation order outside closures. */
  private writes = 0;
  private aborts = 0;
  private abortsAfterWrite = false;
  /** First argument of the last compiled call whose kind is not verifiably accepted. */
  private lastArgKindError: ArgKindMismatch | undefined;

  constructor(
    readonly src: string,
    readonly opts: CompilerOptions,
  ) {}

  private text(span: Span): string {
    return this.src.slice(span[0], span[1]);
  }

  private err(code: number, message: string, labels: Label[], notes: string[] = []): Diagnostic {
    return new Diagnostic('error', code, message, labels, notes);
  }
  private fail(d: Diagnostic): never {
    this.diags.push(d);
    throw new Skip();
  }

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

  private noteWrite(): void {
    this.mutatesExternal = true;
    this.writes++;
  }

  private noteAbort(): void {
    this.abortable = true;
    this.aborts++;
    if (this.writes > 0) this.abortsAfterWrite = true;
  }

  private newSlot(name: string, scope: Scope): number {
    const slot = this.slotNames.length;
    this.slotNames.push(name);
    scope.vars.set(name, slot);
    return slot;
  }

  /** Compiles one expression; records an unhandled-error diagnostic for the outermost fallible one. */
  expr(e: Expr, st: TypeState, sc: Scope): C {
    const pre = this.pending.length;
    const c = this.exprInner(e, st, sc);
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

  private exprInner(e: Expr, st: TypeState, sc: Scope): C {
    switch (e.k) {
      case 'lit': {
        const v = e.value;
        return { run: () => v, kind: K.kindOfValue(v), fallible: false, constant: v, isConstant: true };
      }
      case 'template':
        return this.template(e, st, sc);
      case 'array':
        return this.array(e, st, sc);
      case 'object':
        return this.object(e, st, sc);
      case 'block': {
        const inner = new Scope(sc);
        try {
          return this.block(e.exprs, st, inner);
        } catch (x) {
          // a block that fails to compile leaves its variables defined (as VRL does): no follow-up noise
          if (x instanceof Skip) for (const [n, slot] of inner.vars) if (!sc.lookup(n)) sc.vars.set(n, slot);
          throw x;
        }
      }
      case 'group':
        if (e.expr.k === 'block') return this.block(e.expr.exprs, st, sc);
        return this.expr(e.expr, st, sc);
      case 'if':
        return this.ifExpr(e, st, sc);
      case 'op':
        return this.op(e, st, sc);
      case 'not':
        return this.not(e, st, sc);
      case 'assign':
        return this.assign(e, st, sc);
      case 'query':
        return this.query(e, st, sc);
      case 'var':
        return this.variable(e.name, e.span, st, sc);
      case 'call':
        return this.call(e, st, sc);
      case 'abort':
        return this.abort(e, st, sc);
      case 'return': {
        const pre = this.pending.length;
        const c = this.expr(e.expr, st, sc);
        this.pending.length = pre;
        this.closureReturns[this.closureReturns.length - 1]?.push(c.kind);
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
    }
  }

  private block(exprs: readonly Expr[], st: TypeState, sc: Scope): C {
    const cs = exprs.map((x) => this.expr(x, st, sc));
    const runs = cs.map((c) => c.run);
    const last = cs[cs.length - 1]!;
    const fallible = cs.some((c) => c.fallible);
    const run = sequence(runs);
    return { run, kind: last.kind, fallible, isConstant: false };
  }

  private template(e: Expr & { k: 'template' }, st: TypeState, sc: Scope): C {
    const parts: (string | Run)[] = [];
    let fallible = false;
    for (const p of e.parts) {
      if (typeof p === 'string') {
        parts.push(p);
        continue;
      }
      const v = this.variable(p.name, p.span, st, sc);
      const kind = p.path.length ? kindAt(v.kind, p.path.map(toKSeg)) : v.kind;
      if (!kind.isOnly(K.BYTES)) fallible = true;
      const segs = p.path;
      const get = v.run;
      parts.push((ctx) => {
        const x = segs.length ? readPath(get(ctx), segs) : get(ctx);
        if (typeof x !== 'string') throw new VrlError(`expected string, got ${K.valueKindName(x ?? null)}`);
        return x;
      });
    }
    return {
      run: (ctx) => {
        let s = '';
        for (const p of parts) s += typeof p === 'string' ? p : (p(ctx) as string);
        return s;
      },
      kind: K.K_BYTES,
      fallible,
      isConstant: false,
    };
  }

  private array(e: Expr & { k: 'array' }, st: TypeState, sc: Scope): C {
    const cs = e.items.map((x) => this.expr(x, st, sc));
    const items = new Map<number, Kind>();
    cs.forEach((c, i) => items.set(i, K.undefinedToNull(c.kind)));
    const runs = cs.map((c, i) => (needsCopy(e.items[i]!, this.opts.functions) ? copying(c.run) : c.run));
    const fallible = cs.some((c) => c.fallible);
    if (cs.every((c) => c.isConstant)) {
      const v = cs.map((c) => c.constant!);
      return { run: () => cloneValue(v), kind: K.arrayKind(items), fallible, constant: v, isConstant: true };
    }
    const n = runs.length;
    return {
      run: (ctx) => {
        const out = new Array<Value>(n);
        for (let i = 0; i < n; i++) out[i] = runs[i]!(ctx);
        return out;
      },
      kind: K.arrayKind(items),
      fallible,
      isConstant: false,
    };
  }

  private object(e: Expr & { k: 'object' }, st: TypeState, sc: Scope): C {
    const fields = new Map<string, Kind>();
    const keys: string[] = [];
    const runs: Run[] = [];
    let fallible = false;
    let allConst = true;
    const consts: ObjectValue = {};
    for (const [key, x] of e.entries) {
      const c = this.expr(x, st, sc);
      fields.set(key, K.undefinedToNull(c.kind));
      keys.push(key);
      runs.push(needsCopy(x, this.opts.functions) ? copying(c.run) : c.run);
      fallible ||= c.fallible;
      if (c.isConstant) consts[key] = c.constant!;
      else allConst = false;
    }
    if (allConst) return { run: () => cloneValue(consts), kind: K.objectKind(fields), fallible, constant: consts, isConstant: true };
    const n = keys.length;
    return {
      run: (ctx) => {
        const out: ObjectValue = {};
        for (let i = 0; i < n; i++) out[keys[i]!] = runs[i]!(ctx);
        return out;
      },
      kind: K.objectKind(fields),
      fallible,
      isConstant: false,
    };
  }

  private predicate(exprs: readonly Expr[], span: Span, st: TypeState, sc: Scope): Run {
    const pre = this.pending.length;
    const cs = exprs.map((x) => this.expr(x, st, sc));
    const fallibility = this.pending[pre];
    this.pending.length = pre;
    if (fallibility) {
      this.fail(new Diagnostic('error', fallibility.code, fallibility.code === 100 ? 'unhandled error' : 'fallible predicate', fallibility.labels, fallibility.notes));
    }
    const last = cs[cs.length - 1]!;
    if (!last.kind.isOnly(K.BOOLEAN)) {
      this.fail(
        this.err(
          102,
          'non-boolean predicate',
          [primary('this predicate must resolve to a boolean', span), primary(`instead it resolves to ${K.kindName(last.kind.bits)}`, span)],
          [COERCE_HINT, 'see documentation about if expressions at https://vrl.dev/expressions/#if', codeNote(102)],
        ),
      );
    }
    return sequence(cs.map((c) => c.run));
  }

  private ifExpr(e: Expr & { k: 'if' }, st: TypeState, sc: Scope): C {
    const pred = this.predicate(e.predicate, e.predicateSpan, st, sc);
    const afterPred = st.clone();
    const thenC = this.block(e.then.exprs, st, new Scope(sc));
    const thenState = st.clone();
    let elseC: C | undefined;
    if (e.else) {
      st.assignFrom(afterPred.clone());
      elseC = this.block(e.else.exprs, st, new Scope(sc));
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

  private not(e: Expr & { k: 'not' }, st: TypeState, sc: Scope): C {
    const c = this.expr(e.expr, st, sc);
    if (!c.kind.isOnly(K.BOOLEAN)) {
      this.fail(
        this.err(
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

  /** `inPlace`: the `|=` form, whose left side is the assignment target and may be updated in place. */
  private op(e: Expr & { k: 'op' }, st: TypeState, sc: Scope, inPlace = false): C {
    const pre = this.pending.length;
    if (COMPARISONS.has(e.op) && e.lhs.k === 'op' && COMPARISONS.has(e.lhs.op)) {
      this.diags.push(this.err(650, "comparison operators can't be chained together", [primary('', e.opSpan)], ['see documentation about comparisons at https://vrl.dev/expressions/#comparison']));
      // keep checking the left chain for further errors
      try {
        this.expr(e.lhs, st.clone(), sc);
      } catch (x) {
        if (!(x instanceof Skip)) throw x;
      }
      this.pending.length = pre;
      throw new Skip();
    }
    const lhs = this.expr(e.lhs, st, sc);
    if (e.op === '??') this.pending.length = pre;
    const afterLhs = this.pending.length;
    const before = st.clone();
    const lrun = lhs.run;
    const lk = lhs.kind;
    const lconst = lhs.isConstant ? lhs.constant : undefined;
    const result = (run: Run, kind: Kind, fallible: boolean): C => {
      if (!fallible) this.pending.length = pre;
      return { run, kind, fallible, isConstant: false };
    };
    const fallUnless = (kind: Kind, bits: number): boolean => !kind.isOnly(bits) && !(kind.bits === 0);
    switch (e.op) {
      case '??': {
        const rhs = this.expr(e.rhs, st, sc);
        st.assignFrom(before.merge(st));
        if (!lhs.fallible) {
          this.pending.length = pre;
          this.fail(
            this.err(651, 'unnecessary error coalescing operation', [
              primary("this expression can't fail", e.lhs.span),
              secondary('remove this error coalescing operation', e.opSpan),
              secondary('this expression never resolves', e.rhs.span),
            ]),
          );
        }
        const rrun = rhs.run;
        return result(
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
      case '||': {
        if (lk.isOnly(K.NULL) || lconst === false) {
          const rhs = this.expr(e.rhs, st, sc);
          const rrun = rhs.run;
          return result((ctx) => (isFalsy(lrun(ctx)) ? rrun(ctx) : lrun(ctx)), rhs.kind, lhs.fallible || rhs.fallible);
        }
        if (!lk.has(K.NULL | K.BOOLEAN) || lconst === true) {
          const sub = st.clone();
          const rhs = this.expr(e.rhs, sub, sc);
          const rrun = rhs.run;
          // the right side never runs: its fallibility does not count
          this.pending.length = afterLhs;
          return result(
            (ctx) => {
              const l = lrun(ctx);
              return isFalsy(l) ? rrun(ctx) : l;
            },
            lk,
            lhs.fallible,
          );
        }
        const rhs = this.expr(e.rhs, st, sc);
        st.assignFrom(before.merge(st));
        const rrun = rhs.run;
        return result(
          (ctx) => {
            const l = lrun(ctx);
            return isFalsy(l) ? rrun(ctx) : l;
          },
          union(lk.without(K.NULL), rhs.kind),
          lhs.fallible || rhs.fallible,
        );
      }
      case '&&': {
        if (lk.isOnly(K.NULL) || lconst === false) {
          const sub = st.clone();
          this.expr(e.rhs, sub, sc);
          return result(() => false, K.K_BOOLEAN, lhs.fallible && false);
        }
        if (lconst === true) {
          const rhs = this.expr(e.rhs, st, sc);
          const rrun = rhs.run;
          return result((ctx) => opAnd(lrun(ctx), () => rrun(ctx)), K.K_BOOLEAN, rhs.fallible || fallUnless(rhs.kind, K.NULL | K.BOOLEAN));
        }
        const rhs = this.expr(e.rhs, st, sc);
        st.assignFrom(before.merge(st));
        const rrun = rhs.run;
        const fallible = lhs.fallible || fallUnless(lk, K.NULL | K.BOOLEAN) || rhs.fallible || fallUnless(rhs.kind, K.NULL | K.BOOLEAN);
        return result((ctx) => opAnd(lrun(ctx), () => rrun(ctx)), K.K_BOOLEAN, fallible);
      }
      case '==':
      case '!=': {
        const rhs = this.expr(e.rhs, st, sc);
        const rrun = rhs.run;
        const neg = e.op === '!=';
        return result((ctx) => looseEquals(lrun(ctx), rrun(ctx)) !== neg, K.K_BOOLEAN, lhs.fallible || rhs.fallible);
      }
      case '<':
      case '<=':
      case '>':
      case '>=': {
        const rhs = this.expr(e.rhs, st, sc);
        const rrun = rhs.run;
        const op = e.op;
        const rk = rhs.kind;
        const ok = (lk.isOnly(K.BYTES) && rk.isOnly(K.BYTES)) || (lk.isOnly(K.TIMESTAMP) && rk.isOnly(K.TIMESTAMP));
        const fallible = lhs.fallible || rhs.fallible || (!ok && (fallUnless(lk, K.INTEGER | K.FLOAT) || fallUnless(rk, K.INTEGER | K.FLOAT)));
        return result((ctx) => opCompare(lrun(ctx), rrun(ctx), op), K.K_BOOLEAN, fallible);
      }
      case '|': {
        const rhs = this.expr(e.rhs, st, sc);
        // a merged-in query is copied: the result must not share containers with its source
        const rrun = needsCopy(e.rhs, this.opts.functions) ? copying(rhs.run) : rhs.run;
        const rk = rhs.kind;
        const bad: Label[] = [];
        if (lk.bits !== 0 && !lk.has(K.OBJECT)) bad.push(primary('this expression must resolve to an object', e.lhs.span));
        if (rk.bits !== 0 && !rk.has(K.OBJECT)) bad.push(primary('this expression must resolve to an object', e.rhs.span));
        if (bad.length) {
          this.pending.length = pre;
          this.fail(this.err(652, 'only objects can be merged', bad));
        }
        const fallible = lhs.fallible || rhs.fallible || (lk.bits !== 0 && !lk.isOnly(K.OBJECT)) || (rk.bits !== 0 && !rk.isOnly(K.OBJECT));
        const mergedKind = rk.bits === 0 ? lk : lk.bits === 0 ? rk : K.mergeObjects(lk, rk);
        if (inPlace) {
          return result(
            (ctx) => {
              const l = lrun(ctx);
              const r = rrun(ctx);
              if (!isObject(l) || !isObject(r)) return opMerge(l, r);
              // the same assignments as a loop over r's fields, in V8's copying fast path
              return Object.assign(l, r);
            },
            mergedKind,
            fallible,
          );
        }
        return result((ctx) => opMerge(lrun(ctx), rrun(ctx)), mergedKind, fallible);
      }
      case '/': {
        const rhs = this.expr(e.rhs, st, sc);
        const rrun = rhs.run;
        const rc = rhs.isConstant ? rhs.constant : undefined;
        const literalOk =
          (lk.isOnly(K.INTEGER) || lk.isOnly(K.FLOAT)) &&
          ((typeof rc === 'number' && rc !== 0) || (rc instanceof Float && rc.value !== 0 && Number.isFinite(rc.value)));
        return result((ctx) => opDiv(lrun(ctx), rrun(ctx)), K.K_FLOAT, lhs.fallible || rhs.fallible || !literalOk);
      }
      default: {
        const rhs = this.expr(e.rhs, st, sc);
        const rrun = rhs.run;
        const rk = rhs.kind;
        const f = lhs.fallible || rhs.fallible;
        const fn = e.op === '+' ? opAdd : e.op === '-' ? opSub : opMul;
        let kind: Kind;
        let fallible: boolean;
        if (e.op === '+' && (lk.isOnly(K.BYTES) || rk.isOnly(K.BYTES))) {
          kind = K.K_BYTES;
          fallible = f || fallUnless(lk, K.BYTES | K.NULL) || fallUnless(rk, K.BYTES | K.NULL);
        } else if (lk.isOnly(K.FLOAT) || rk.isOnly(K.FLOAT)) {
          kind = K.K_FLOAT;
          fallible = f || fallUnless(lk, K.INTEGER | K.FLOAT) || fallUnless(rk, K.INTEGER | K.FLOAT);
        } else if (lk.isOnly(K.INTEGER) && rk.isOnly(K.INTEGER)) {
          kind = K.K_INTEGER;
          fallible = f;
        } else if (e.op === '*' && ((lk.isOnly(K.BYTES) && rk.isOnly(K.INTEGER)) || (lk.isOnly(K.INTEGER) && rk.isOnly(K.BYTES)))) {
          kind = K.K_BYTES;
          fallible = f;
        } else {
          kind = e.op === '-' ? K.k(K.INTEGER | K.FLOAT) : K.k(K.BYTES | K.INTEGER | K.FLOAT);
          fallible = true;
        }
        return result((ctx) => fn(lrun(ctx), rrun(ctx)), kind, fallible);
      }
    }
  }

  private variable(name: string, span: Span, st: TypeState, sc: Scope): C {
    const slot = sc.lookup(name);
    if (slot === undefined) {
      if (this.skipVars.has(name)) throw new Skip();
      const guess = suggest(name, [...sc.names(), 'null', 'true', 'false']);
      const labels = [primary('undefined variable', span)];
      if (guess !== undefined) labels.push(primary(`did you mean "${guess}"?`, span));
      this.fail(this.err(701, 'call to undefined variable', labels));
    }
    const kind = st.locals.get(slot) ?? K.K_NULL;
    const c = st.consts.get(slot);
    if (c !== undefined) return { run: (ctx) => ctx.vars[slot]!, kind, fallible: false, constant: c, isConstant: true };
    return { run: (ctx) => ctx.vars[slot]!, kind, fallible: false, isConstant: false };
  }

  private query(e: Expr & { k: 'query' }, st: TypeState, sc: Scope): C {
    const segs = e.path;
    const ksegs = segs.map(toKSeg);
    const t = e.target;
    let base: Kind;
    let get: Run;
    let fallible = false;
    if ((t.kind === 'event' || t.kind === 'meta') && this.skipQueries.has(queryKey(t.kind, segs))) throw new Skip();
    if (t.kind === 'event') {
      base = st.target;
      get = (ctx) => ctx.target;
    } else if (t.kind === 'meta') {
      base = st.meta;
      get = (ctx) => ctx.meta;
    } else if (t.kind === 'var') {
      const v = this.variable(t.name, t.span, st, sc);
      base = v.kind;
      get = v.run;
    } else {
      const c = this.expr(t.expr, st, sc);
      base = c.kind;
      get = c.run;
      fallible = c.fallible;
    }
    const kind = segs.length === 0 ? base : kindAt(base, ksegs);
    if (segs.length === 0) return { run: get, kind, fallible, isConstant: false };
    if (segs.length === 1 && 'field' in segs[0]!) {
      const f = segs[0].field;
      return {
        run: (ctx) => {
          const v = get(ctx);
          if (!isObject(v)) return null;
          const x = v[f];
          return x === undefined || !Object.prototype.hasOwnProperty.call(v, f) ? null : x;
        },
        kind,
        fallible,
        isConstant: false,
      };
    }
    return { run: (ctx) => readPath(get(ctx), segs) ?? null, kind, fallible, isConstant: false };
  }

  private abort(e: Expr & { k: 'abort' }, st: TypeState, sc: Scope): C {
    this.noteAbort();
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
    const pre = this.pending.length;
    const c = this.expr(e.message, st, sc);
    this.pending.length = pre;
    if (c.fallible) {
      this.fail(
        this.err(
          631,
          'unhandled fallible expression',
          [primary('abort only accepts an infallible expression argument', e.message.span), primary('handle errors before using the expression as an abort message', e.message.span)],
          [ERROR_HANDLING_NOTE],
        ),
      );
    }
    if (!c.kind.isOnly(K.BYTES) && c.kind.bits !== 0) {
      this.fail(
        this.err(
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

  // ---------------------------------------------------------------- assignment

  /** Compiles the store of a value into a target; updates the type state. */
  private store(t: AssignTarget, kind: Kind, st: TypeState, sc: Scope, opSpan: Span, constant?: Value, rhsText = '…'): (ctx: Ctx, v: Value) => void {
    const vkind = K.undefinedToNull(kind);
    if (t.kind === 'noop') return () => {};
    if (t.kind === 'event' || t.kind === 'meta') {
      this.noteWrite();
      this.checkReadOnly(t, opSpan);
      this.checkParent(t.path, t.kind === 'event' ? st.target : st.meta, t.span, rhsText);
      const segs = t.path;
      const ks = segs.map(toKSeg);
      if (t.kind === 'event') {
        st.target = segs.length ? kindSet(st.target, ks, vkind) : vkind;
        if (segs.length === 1 && 'field' in segs[0]!) {
          // hot path: one top-level field
          const f = segs[0].field;
          return (ctx, v) => {
            const t0 = ctx.target;
            if (isObject(t0)) t0[f] = v;
            else ctx.target = { [f]: v };
          };
        }
        return segs.length ? (ctx, v) => void (ctx.target = writePath(ctx.target, segs, 0, v)) : (ctx, v) => void (ctx.target = v);
      }
      st.meta = segs.length ? kindSet(st.meta, ks, vkind) : vkind;
      return segs.length ? (ctx, v) => void (ctx.meta = writePath(ctx.meta, segs, 0, v)) : (ctx, v) => void (ctx.meta = v);
    }
    let slot = sc.lookup(t.name);
    if (slot !== undefined && t.path.length) this.checkParent(t.path, st.locals.get(slot) ?? K.K_NULL, t.span, rhsText, t.name);
    if (slot === undefined) slot = this.newSlot(t.name, sc);
    const s = slot;
    const segs = t.path;
    if (segs.length === 0) {
      st.locals.set(s, vkind);
      if (constant !== undefined) st.consts.set(s, constant);
      else st.consts.delete(s);
      return (ctx, v) => void (ctx.vars[s] = v);
    }
    st.consts.delete(s);
    st.locals.set(s, kindSet(st.locals.get(s) ?? K.K_NULL, segs.map(toKSeg), vkind));
    return (ctx, v) => void (ctx.vars[s] = writePath(ctx.vars[s], segs, 0, v));
  }

  /** E642: assigning into a field/index of a parent known not to be an object/array. */
  private checkParent(path: readonly Segment[], root: Kind, span: Span, rhsText: string, varName?: string): void {
    if (path.length === 0) return;
    const ks = path.map(toKSeg);
    const parent = kindAt(root, ks.slice(0, -1));
    if (parent.isAny) return;
    const last = path[path.length - 1]!;
    const wantObject = !('index' in last);
    const okBit = wantObject ? K.OBJECT : K.ARRAY;
    if (parent.has(okBit)) return;
    if (parent.has(K.UNDEFINED)) {
      if (path.length === 1) return;
      const grand = kindAt(root, ks.slice(0, -2));
      const next = path[path.length - 2]!;
      if (grand.isAny || grand.has('index' in next ? K.ARRAY : K.OBJECT)) return;
    }
    const text = this.text(span);
    const cut = wantObject ? text.lastIndexOf('.') : text.lastIndexOf('[');
    const parentEnd = span[0] + (cut === 0 ? 1 : cut);
    const segStart = span[0] + (wantObject ? cut + 1 : cut);
    // the note spells paths as VRL prints them: a variable's path follows its name without a dot
    const segText = (sg: Segment, first: boolean): string =>
      'index' in sg ? `[${sg.index}]` : `${first ? '' : '.'}${'field' in sg ? sg.field : `(${sg.coalesce.join(' | ')})`}`;
    const parentSegs = path.slice(0, -1);
    const parentPath = parentSegs.map((sg, i) => segText(sg, i === 0)).join('');
    const parentText = varName !== undefined ? varName + parentPath : parentSegs.length === 0 ? text.slice(0, parentEnd - span[0]) : '.' + parentPath;
    const fullText = parentText + segText(last, varName === undefined && parentSegs.length === 0);
    const rhs = rhsText;
    this.fail(
      this.err(
        642,
        'parent path segment rejects this mutation',
        [
          primary(wantObject ? 'querying a field of a non-object type is unsupported' : 'indexing into a non-array type is unsupported', [segStart, span[1]]),
          secondary(`this path resolves to a value of type ${K.kindName(parent.bits)}`, [span[0], parentEnd]),
        ],
        [`try: change parent value to ${wantObject ? 'object' : 'array'}, before assignment`, '', `    ${parentText} = ${wantObject ? '{}' : '[]'}`, `    ${fullText} = ${rhs}`, '', ERROR_HANDLING_NOTE],
      ),
    );
  }

  private checkReadOnly(t: AssignTarget & { kind: 'event' | 'meta' }, span: Span): void {
    const ro = this.opts.readOnly;
    if (!ro || ro.length === 0) return;
    const path = t.path.map((s) => ('field' in s ? s.field : 'index' in s ? s.index : s.coalesce[0]!));
    for (const r of ro) {
      if (r.meta !== (t.kind === 'meta')) continue;
      const n = Math.min(r.path.length, path.length);
      let prefixEq = true;
      for (let i = 0; i < n; i++) if (r.path[i] !== path[i]) prefixEq = false;
      if (!prefixEq) continue;
      if (path.length <= r.path.length || r.recursive) {
        this.fail(this.err(315, 'mutation of read-only value', [primary('mutation of read-only value', span)]));
      }
    }
  }

  private assign(e: Expr & { k: 'assign' }, st: TypeState, sc: Scope): C {
    const pre = this.pending.length;
    const opEnd = this.src.indexOf('=', e.err ? e.err.span[1] : e.target.span[1]) + 1;
    const assignSpan: Span = [e.target.span[0], opEnd];
    let rhs: C;
    try {
      if (e.merge) {
        const lhsExpr = targetToExpr(e.target);
        rhs = this.op({ k: 'op', op: '|', lhs: lhsExpr, rhs: e.expr, opSpan: [opEnd - 2, opEnd], span: e.span }, st, sc, true);
      } else rhs = this.expr(e.expr, st, sc);
    } catch (x) {
      if (x instanceof Skip) {
        for (const t of [e.target, e.err]) {
          if (t && t.kind === 'var') this.skipVars.add(t.name);
          else if (t && (t.kind === 'event' || t.kind === 'meta')) this.skipQueries.add(queryKey(t.kind, t.path));
        }
      }
      throw x;
    }
    const exprText = this.text(e.expr.span);
    if (e.err) {
      this.pending.length = pre;
      if (!rhs.fallible) {
        const okText = this.text(e.target.span);
        this.fail(
          this.err(
            104,
            'unnecessary error assignment',
            [
              primary('this error assignment is unnecessary', e.err.span),
              secondary("because this expression can't fail", e.expr.span),
              secondary(`use: ${okText} = ${exprText}`, e.target.span),
            ],
            [ERROR_HANDLING_NOTE, codeNote(104)],
          ),
        );
      }
      if (e.target.kind === 'noop' && e.err.kind === 'noop') this.unnecessaryNoop(e, [e.target.span[0], e.err.span[1]]);
      const okKind = union(K.undefinedToNull(rhs.kind), K.kindOfValue(defaultOf(rhs.kind)));
      const def = defaultOf(rhs.kind);
      const setOk = this.store(e.target, okKind, st, sc, assignSpan);
      const setErr = this.store(e.err, K.k(K.BYTES | K.NULL), st, sc, assignSpan);
      const r = copyIfNeeded(e.expr, rhs.run, e.merge, this.opts.functions);
      return {
        run: (ctx) => {
          let v: Value;
          try {
            v = r(ctx);
          } catch (x) {
            if (!(x instanceof VrlError)) throw x;
            setOk(ctx, cloneValue(def));
            setErr(ctx, x.message);
            return x.message;
          }
          setOk(ctx, v);
          setErr(ctx, null);
          return v;
        },
        kind: union(rhs.kind, K.K_BYTES),
        fallible: false,
        isConstant: false,
      };
    }
    const fallibility = this.pending[pre];
    if (fallibility) {
      this.pending.length = pre;
      const targetText = this.text(e.target.span);
      const labels: Label[] = [primary("this expression is fallible because at least one argument's type cannot be verified to be valid", e.expr.span)];
      const argLabel = fallibility.code === 110 ? fallibility.labels : undefined;
      if (argLabel && e.expr.k === 'call') {
        const got = argLabel[0]!.message.replace('this expression resolves to ', '');
        const m = /parameter "([^"]+)" expects (.*)$/.exec(argLabel[1]!.message);
        const argText = this.text(argLabel[0]!.span);
        const gotText = got.replace(/^the exact type |^one of /, '');
        const expText = (m?.[2] ?? '').replace(/^the exact type |^one of /, '');
        labels.push(primary(`\`${argText}\` argument type is \`${gotText}\` and this function expected a parameter \`${m?.[1]}\` of type \`${expText}\``, e.expr.span));
        labels.push(primary(`update the expression to be infallible by adding a \`!\`: \`${exprText.replace(e.expr.name, e.expr.name + '!')}\``, e.expr.span));
      } else if (e.expr.k === 'call') {
        const bad = this.lastArgKindError;
        if (bad) {
          labels.push(primary(`\`${this.text(bad.span)}\` argument type is \`${K.kindName(bad.got)}\` and this function expected a parameter \`${bad.param}\` of type \`${K.kindName(bad.want)}\``, e.expr.span));
          labels.push(primary(`update the expression to be infallible by adding a \`!\`: \`${exprText.replace(e.expr.name, e.expr.name + '!')}\``, e.expr.span));
        } else labels.push(primary('update the expression to be infallible by adding a `!`', e.expr.span));
      }
      labels.push(secondary('or change this to an infallible assignment:', assignSpan), secondary(`${targetText}, err = ${exprText}`, assignSpan));
      this.fail(
        this.err(103, 'unhandled fallible assignment', labels, [
          ERROR_HANDLING_NOTE,
          ...(e.expr.k === 'call' ? ['see functions characteristics documentation at https://vrl.dev/expressions/#function-call-characteristics'] : []),
          codeNote(103),
        ]),
      );
    }
    if (e.target.kind === 'noop') this.unnecessaryNoop(e, [e.target.span[0], Math.max(e.target.span[0], e.expr.span[0] - 1)]);
    const rhsDisplay = e.expr.k === 'object' && e.expr.entries.length === 0 ? '{  }' : exprText;
    const set = this.store(e.target, rhs.kind, st, sc, assignSpan, rhs.isConstant && !e.merge ? rhs.constant : undefined, rhsDisplay);
    const r = copyIfNeeded(e.expr, rhs.run, e.merge, this.opts.functions);
    return {
      run: (ctx) => {
        const v = r(ctx);
        set(ctx, v);
        return v;
      },
      kind: K.undefinedToNull(rhs.kind),
      fallible: false,
      isConstant: false,
    };
  }

  /** E640: `_ = expr` (or `_, _ = expr`) discards a value that needs no discarding; VRL's spans. */
  private unnecessaryNoop(e: Expr & { k: 'assign' }, assignSpan: Span): never {
    const targetSpan = e.target.span;
    this.fail(
      this.err(640, 'unnecessary no-op assignment', [
        primary('this no-op assignment has no effect', e.expr.span),
        secondary('either assign to a path or variable here', targetSpan),
        secondary('or remove the assignment', assignSpan),
      ]),
    );
  }

  // ---------------------------------------------------------------- function calls

  /** A call, step by step in the order its diagnostics are reported: function, argument binding, closure presence, arguments, static validation, closure body, fallibility and result kind. */
  private call(e: CallExpr, st: TypeState, sc: Scope): C {
    const def = this.resolveFunction(e);
    const slots = this.bindArguments(e, def.params);
    this.checkClosureGiven(e, def);
    // del() types its result by the event as it was before the call
    const targetBefore = st.target;
    const args = this.compileArguments(e, def.params, slots, st, sc);
    const prepared = this.prepareCall(e, def, args.infos);
    const closure = e.closure && def.closure ? this.compileClosure(e.closure, def.closure, args.infos, st, sc) : undefined;
    this.lastArgKindError = args.kindMismatch;
    if (def.name === 'del' && args.queries.some((q) => q?.isExternal)) this.noteWrite();
    const fallible = this.callFallible(e, def, args);
    let kind = typeof def.returns === 'function' ? def.returns(args.infos) : def.returns;
    if (def.name === 'del' && args.queries[0]) kind = this.deleteEffects(slots[0]!.expr as QueryExpr, st, sc, targetBefore);
    if (def.noEval) {
      const prep = prepared as Value;
      return { run: () => prep, kind, fallible, isConstant: false };
    }
    return { run: callRun(def, args, prepared, closure, e.name, this.src, e.span), kind, fallible, isConstant: false };
  }

  /** The declaration of the called function; E105, with the closest name, when there is none. */
  private resolveFunction(e: CallExpr): FnDef {
    const def = this.opts.functions.get(e.name);
    if (def) return def;
    // candidates in name order: the suggestion does not depend on how the function list is assembled
    const guess = suggest(e.name, [...this.opts.functions.keys()].sort());
    const labels = [primary('undefined function', e.nameSpan)];
    if (guess) labels.push(primary(`did you mean "${guess}"?`, e.nameSpan));
    return this.fail(this.err(105, 'call to undefined function', labels, [codeNote(105)]));
  }

  /** Maps keyword and positional arguments onto the parameters (E108, E106), then checks the required ones are there (E107). */
  private bindArguments(e: CallExpr, params: readonly Param[]): ArgSlot[] {
    const slots: ArgSlot[] = new Array(params.length).fill(undefined);
    let positional = 0;
    for (const a of e.args) {
      if (a.name !== undefined) {
        const idx = params.findIndex((p) => p.name === a.name);
        if (idx < 0) {
          this.fail(
            this.err(
              108,
              'unknown function argument keyword',
              [primary('unknown keyword', a.nameSpan!), secondary(`this function accepts the following keywords: ${params.map((p) => `"${p.name}"`).join(', ')}`, e.nameSpan)],
              [codeNote(108)],
            ),
          );
        }
        slots[idx] = { expr: a.expr, span: a.expr.span };
      } else {
        if (positional >= params.length) {
          const extra = e.args.slice(params.length);
          const first = extra[0]!.expr.span[0];
          const last = e.args[e.args.length - 1]!.expr.span[1];
          const span: Span = [e.args[0]!.expr.span[0] <= first ? e.args[0]!.expr.span[0] : first, last];
          this.fail(
            this.err(
              106,
              'wrong number of function arguments',
              [primary('too many function arguments', span), primary(`this function takes a maximum of ${params.length} argument${params.length === 1 ? '' : 's'}`, span)],
              ['see documentation about function arguments at https://vrl.dev/expressions/#arguments', codeNote(106)],
            ),
          );
        }
        while (positional < params.length && slots[positional] !== undefined) positional++;
        slots[positional++] = { expr: a.expr, span: a.expr.span };
      }
    }
    params.forEach((p, i) => {
      if (p.required && slots[i] === undefined) {
        this.fail(this.err(107, 'missing function argument', [primary(`required argument missing: "${p.name}" (position ${i})`, e.span)], [codeNote(107)]));
      }
    });
    return slots;
  }

  /** A closure is given exactly when the function takes one (E109, E111). */
  private checkClosureGiven(e: CallExpr, def: FnDef): void {
    if (e.closure && !def.closure) {
      this.fail(this.err(109, 'unexpected closure', [primary('unexpected closure', e.closure.span), secondary('this function does not accept a closure', e.span)], [codeNote(109)]));
    }
    if (!e.closure && def.closure) {
      this.fail(this.err(111, 'function argument missing closure', [primary('this function expects a closure', e.span)], [codeNote(111)]));
    }
  }

  /** Compiles each argument against its parameter: a fallible argument is an error of its own (E630), a kind never accepted is E110. */
  private compileArguments(e: CallExpr, params: readonly Param[], slots: readonly ArgSlot[], st: TypeState, sc: Scope): CompiledArgs {
    const pre = this.pending.length;
    const infos: ArgInfo[] = [];
    const runs: (Run | undefined)[] = [];
    const queries: (QueryRef | undefined)[] = [];
    const checks: (number | undefined)[] = [];
    let typeFallible: Diagnostic | undefined;
    let kindMismatch: ArgKindMismatch | undefined;
    for (let i = 0; i < params.length; i++) {
      const p = params[i]!;
      const a = slots[i];
      if (!a) {
        infos.push({ present: false, kind: K.K_UNDEFINED, isConstant: false, fallible: false });
        runs.push(undefined);
        queries.push(undefined);
        checks.push(undefined);
        continue;
      }
      if (p.query) {
        const q = this.queryArgument(p, a, st, sc);
        queries.push(q.ref);
        infos.push(q.info);
        runs.push(undefined);
        checks.push(undefined);
        continue;
      }
      const argPre = this.pending.length;
      const c = this.expr(a.expr, st, sc);
      if (c.fallible) {
        this.pending.length = pre;
        this.fail(
          this.err(
            630,
            'fallible argument',
            [primary('this expression can fail', a.span), primary('handle the error before passing it in as an argument', a.span)],
            [ERROR_HANDLING_NOTE],
          ),
        );
      }
      this.pending.length = argPre;
      const got = (c.kind.bits & K.UNDEFINED ? (c.kind.bits & ~K.UNDEFINED) | K.NULL : c.kind.bits) & K.ALL;
      if (c.kind.bits !== 0 && (got & p.kind) === 0 && p.kind !== K.ALL) {
        this.fail(this.argKindError(110, 'invalid argument type', e, a, p.name, p.kind, c.kind.bits));
      }
      // some of the argument's kinds are not accepted: checked at run time, and the call becomes fallible
      const needsCheck = c.kind.bits !== 0 && (got & ~p.kind) !== 0 && (p.kind & K.ANY_VALUE) !== K.ANY_VALUE;
      if (needsCheck && !typeFallible) {
        typeFallible = this.argKindError(110, 'invalid argument type', e, a, p.name, p.kind, c.kind.bits);
        kindMismatch = { span: a.span, param: p.name, want: p.kind, got: c.kind.bits };
      }
      checks.push(needsCheck ? p.kind : undefined);
      infos.push({ present: true, kind: c.kind, isConstant: c.isConstant, ...(c.isConstant ? { constant: c.constant! } : {}), fallible: c.fallible });
      runs.push(c.run);
      queries.push(undefined);
    }
    this.pending.length = pre;
    return { infos, runs, queries, checks, typeFallible, kindMismatch };
  }

  /** A path argument (`del(.a)`): must be a query (E610 with E400's labels); the call receives a reference to it. */
  private queryArgument(p: Param, a: NonNullable<ArgSlot>, st: TypeState, sc: Scope): { ref: QueryRef; info: ArgInfo } {
    if (a.expr.k !== 'query') {
      this.fail(
        this.err(610, 'function compilation error: error[E400] unexpected expression', [primary(`unexpected expression for argument "${p.name}"`, a.span), secondary('expected: query', a.span)]),
      );
    }
    const q = a.expr;
    const c = this.query(q, st, sc);
    const ref = this.queryRef(q, sc, st);
    const rootKind =
      q.target.kind === 'event' ? st.target : q.target.kind === 'meta' ? st.meta : q.target.kind === 'var' ? st.locals.get(sc.lookup(q.target.name) ?? -1) ?? K.K_NULL : K.ANY;
    const root = q.target.kind === 'var' ? { kind: q.target.kind, name: q.target.name } : { kind: q.target.kind };
    return { ref, info: { present: true, kind: c.kind, isConstant: false, fallible: false, rootKind, path: q.path.map(toKSeg), root } };
  }

  /** The function's compile-time validation of its arguments; what it returns reaches every call (E610 with E403's labels). */
  private prepareCall(e: CallExpr, def: FnDef, infos: readonly ArgInfo[]): unknown {
    if (!def.prepare) return undefined;
    try {
      return def.prepare(infos);
    } catch (x) {
      if (!(x instanceof FunctionCompileError)) throw x;
      // same-span labels render in VRL's order only when inserted as: first, last, middle
      const labels = [primary(x.argName ? `invalid argument "${x.argName}"` : x.message, e.span)];
      if (x.received !== undefined) labels.push(primary(`received: ${x.received}`, e.span));
      if (x.argName) labels.push(primary(`error: ${x.message}`, e.span));
      return this.fail(this.err(610, 'function compilation error: error[E403] invalid argument', labels, [codeNote(403)]));
    }
  }

  /** Compiles the closure body with its parameters typed from the arguments (E120 arity, E122 result kind). */
  private compileClosure(closure: Closure, decl: ClosureDecl, infos: readonly ArgInfo[], st: TypeState, sc: Scope): ClosureRun {
    const pre = this.pending.length;
    if (closure.params.length !== decl.arity) {
      this.fail(
        this.err(120, 'function closure arity mismatch', [
          primary(`this function requires a closure with ${decl.arity} argument(s)`, closure.span),
          secondary(`but ${closure.params.length} argument(s) are supplied`, closure.span),
        ]),
      );
    }
    const kinds = decl.params(infos);
    const inner = new Scope(sc);
    const pslots = closure.params.map((p, i) => {
      const slot = this.newSlot(p.name || `_closure${this.slotNames.length}`, inner);
      st.locals.set(slot, kinds[i] ?? K.ANY);
      return slot;
    });
    const bodyState = st.clone();
    const returns: Kind[] = [];
    this.closureReturns.push(returns);
    let body: C;
    const [writes, aborts] = [this.writes, this.aborts];
    try {
      body = this.block(closure.body.exprs, bodyState, inner);
    } finally {
      this.closureReturns.pop();
    }
    // a closure runs many times: an abort point in it may follow a write of an earlier run
    if (this.writes > writes && this.aborts > aborts) this.abortsAfterWrite = true;
    // a `return` inside the closure is one of its results
    for (const r of returns) body = { ...body, kind: union(body.kind, r) };
    st.assignFrom(st.merge(bodyState));
    if (body.fallible) {
      // closures must handle their own errors
      const p = this.pending.splice(pre);
      this.diags.push(...p);
    }
    if (decl.returns !== undefined && body.kind.bits !== 0 && !body.kind.isOnly(decl.returns) && !body.kind.isNever) {
      this.fail(
        this.err(122, 'type mismatch in closure return type', [
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

  /** Whether the call can fail: by the function's declaration or an argument kind not proven; with `!` it aborts instead (warning E620 when it cannot fail). */
  private callFallible(e: CallExpr, def: FnDef, args: CompiledArgs): boolean {
    const intrinsic = typeof def.fallible === 'function' ? def.fallible(args.infos) : def.fallible === true;
    const fallible = intrinsic || args.typeFallible !== undefined;
    if (!e.abort) {
      if (args.typeFallible) this.pending.push(args.typeFallible);
      return fallible;
    }
    this.noteAbort();
    if (!fallible) {
      this.warnings.push(
        new Diagnostic(
          'warning',
          620,
          "can't abort infallible function",
          [primary("this function can't fail", e.nameSpan), secondary('remove this abort (!) instruction', [e.nameSpan[1], e.nameSpan[1] + 1])],
          [ERROR_HANDLING_NOTE],
        ),
      );
    }
    return false;
  }

  /** del() removes the path from the type state; its result is what the path held before (any value off the event). */
  private deleteEffects(q: QueryExpr, st: TypeState, sc: Scope, targetBefore: Kind): Kind {
    const ks = q.path.map(toKSeg);
    if (q.target.kind === 'event') st.target = ks.length ? K.kindRemove(st.target, ks) : K.K_NULL;
    else if (q.target.kind === 'meta') st.meta = ks.length ? K.kindRemove(st.meta, ks) : K.K_NULL;
    else if (q.target.kind === 'var') {
      const slot = sc.lookup(q.target.name);
      if (slot !== undefined) st.locals.set(slot, ks.length ? K.kindRemove(st.locals.get(slot) ?? K.K_NULL, ks) : K.K_NULL);
    }
    let kind = K.undefinedToNull(kindAt(targetBefore, ks));
    if (q.target.kind !== 'event') kind = K.ANY.without(K.UNDEFINED);
    return kind;
  }

  private argKindError(code: number, title: string, e: CallExpr, a: NonNullable<ArgSlot>, pname: string, want: number, got: number): Diagnostic {
    const argText = this.text(a.span);
    const argText2 = (x: Expr): string => (x.k === 'lit' && x.value instanceof RegExp ? (x.value instanceof VrlRegex ? x.value.pattern : x.value.source) : this.text(x.span));
    const callText = `${e.name}${e.abort ? '!' : ''}(${e.args.map((x) => (x.name ? `${x.name}: ` : '') + argText2(x.expr)).join(', ')})`;
    const notes: string[] = [];
    const co = COERCERS[want];
    if (co) {
      notes.push('try: ensuring an appropriate type at runtime', '', `    ${argText} = ${co[0]}!(${argText})`, `    ${callText}`, '');
      if (co[1]) notes.push('try: coercing to an appropriate type and specifying a default value as a fallback in case coercion fails', '', `    ${argText} = ${co[1]}(${argText}) ?? ${co[2]}`, `    ${callText}`, '');
    }
    notes.push(ERROR_HANDLING_NOTE, codeNote(110));
    return this.err(
      code,
      title,
      [primary(`this expression resolves to ${K.kindPhrase(got)}`, a.span), secondary(`but the parameter "${pname}" expects ${K.kindPhrase(want)}`, a.span)],
      notes,
    );
  }

  private queryRef(q: Expr & { k: 'query' }, sc: Scope, st: TypeState): QueryRef {
    const segs = q.path;
    const t = q.target;
    let root: Run;
    let replaceRoot: ((ctx: Ctx, v: Value) => void) | undefined;
    if (t.kind === 'var') {
      const slot = sc.lookup(t.name)!;
      root = (ctx) => ctx.vars[slot]!;
      replaceRoot = (ctx, v) => void (ctx.vars[slot] = v);
    } else if (t.kind === 'meta') {
      root = (ctx) => ctx.meta;
      replaceRoot = (ctx, v) => void (ctx.meta = v);
    } else if (t.kind === 'event') {
      root = (ctx) => ctx.target;
      replaceRoot = (ctx, v) => void (ctx.target = v);
    } else {
      root = this.expr(t.expr, st.clone(), sc).run;
    }
    const external = t.kind === 'event' || t.kind === 'meta';
    return {
      isRoot: segs.length === 0,
      isExternal: external,
      root,
      withValue: (r, v) => writePath(cloneValue(r), segs, 0, v),
      get: (ctx) => readPath(root(ctx), segs) ?? null,
      exists: (ctx) => readPath(root(ctx), segs) !== undefined,
      remove: (ctx, compact) => {
        if (segs.length === 0) {
          const v = root(ctx);
          replaceRoot?.(ctx, null);
          return v;
        }
        return removeAt(root(ctx), segs, compact);
      },
    };
  }
}

/**
 * The runtime side of a call: evaluates the arguments, checks the kinds the compiler could not
 * prove, and runs the implementation; its runtime errors name the call and its byte span.
 */
function callRun(def: FnDef, args: CompiledArgs, prepared: unknown, closure: ClosureRun | undefined, name: string, src: string, span: Span): Run {
  const { runs, queries, checks } = args;
  let prefix: string | undefined;
  const wrap = (x: unknown): never => {
    if (x instanceof VrlError) {
      prefix ??= `function call error for "${name}" at (${byteOffset(src, span[0])}:${byteOffset(src, span[1])}): `;
      throw new VrlError(prefix + x.message);
    }
    throw x;
  };
  const n = def.params.length;
  // one environment per call site, refilled on each run
  const env: { ctx: Ctx; closure: ((...p: Value[]) => Value) | undefined; prepared: unknown } = { ctx: undefined as unknown as Ctx, closure: undefined, prepared };
  // the closure reads the run's context from the environment, so one function serves every run
  if (closure) env.closure = (...p: Value[]) => closure(env.ctx, p);
  const hasChecks = checks.some((c) => c !== undefined);
  const impl = def.call;
  return (ctx) => {
    const vals = new Array<Value | undefined>(n);
    for (let i = 0; i < n; i++) {
      const r = runs[i];
      if (r) vals[i] = r(ctx);
      else {
        const q = queries[i];
        vals[i] = q ? (q as unknown as Value) : undefined;
      }
    }
    if (hasChecks) {
      for (let i = 0; i < n; i++) {
        const want = checks[i];
        if (want === undefined) continue;
        const v = vals[i];
        if (v === undefined) continue;
        if ((K.valueBits(v) & want) === 0) wrap(new VrlError(`expected ${K.kindName(want)}, got ${K.valueKindName(v)}`));
      }
    }
    env.ctx = ctx;
    try {
      return impl(vals, env as CallEnv);
    } catch (x) {
      return wrap(x);
    }
  };
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

function queryKey(kind: string, path: readonly Segment[]): string {
  return kind + JSON.stringify(path);
}

function targetToExpr(t: AssignTarget): Expr {
  if (t.kind === 'event' || t.kind === 'meta') return { k: 'query', target: { kind: t.kind }, path: t.path, span: t.span };
  if (t.kind === 'var') {
    if (t.path.length === 0) return { k: 'var', name: t.name, span: t.span };
    return { k: 'query', target: { kind: 'var', name: t.name, span: t.span }, path: t.path, span: t.span };
  }
  return { k: 'lit', value: null, span: t.span };
}

/** Whether a value produced by this expression may alias another stored value. */
function needsCopy(e: Expr, fns?: ReadonlyMap<string, FnDef>): boolean {
  return e.k === 'query' || e.k === 'var' || (e.k === 'call' && fns !== undefined && !fns.get(e.name)?.fresh);
}

function copying(r: Run): Run {
  return (ctx) => {
    const v = r(ctx);
    return isContainer(v) ? cloneValue(v) : v;
  };
}

function copyIfNeeded(e: Expr, r: Run, merge: boolean, fns: ReadonlyMap<string, FnDef>): Run {
  if (merge) return r;
  if (e.k === 'array' || e.k === 'object' || e.k === 'lit' || e.k === 'template') return r;
  if (e.k === 'call' && fns.get(e.name)?.fresh) return r;
  return copying(r);
}

/** Runs expressions in order and yields the last one's value (a block, a program); one needs no loop. */
function sequence(runs: readonly ((ctx: Ctx) => Value)[]): (ctx: Ctx) => Value {
  const n = runs.length;
  if (n === 1) return runs[0]!;
  return (ctx) => {
    let v: Value = null;
    for (let i = 0; i < n; i++) v = runs[i]!(ctx);
    return v;
  };
}
