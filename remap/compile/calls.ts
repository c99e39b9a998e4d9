/**
 * Compiles function calls, step by step in the order VRL reports their diagnostics: the function,
 * argument binding, closure presence, the arguments, the function's static validation, the closure
 * body, fallibility and the result kind.
 */
import type { Value } from '../../lib/value.js';
import type { Expr } from '../ast.js';
import { Diagnostic, ERROR_HANDLING_NOTE, type Span, codeNote, primary, secondary } from '../diagnostic.js';
import { type ArgInfo, type CallEnv, type FnDef, FunctionCompileError, type Param, type QueryRef } from '../function.js';
import * as K from '../kind.js';
import { type Kind, kindAt } from '../kind.js';
import { VrlRegex } from '../regex.js';
import { type Ctx, VrlError } from '../runtime.js';
import { compileClosure } from './closures.js';
import type { CompileContext } from './context.js';
import { COERCERS, byteOffset, suggest } from './hints.js';
import { toKSeg } from './paths.js';
import { query, queryRef } from './queries.js';
import type { ArgKindMismatch, CallExpr, ClosureRun, Compiled, QueryExpr, Run, Scope, TypeState } from './state.js';

/** An argument bound to its parameter; undefined when omitted. */
type ArgSlot = { readonly expr: Expr; readonly span: Span } | undefined;

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

/** A call; a function declared `noEval` yields what its `prepare` returned, without running. */
export function call(cx: CompileContext, e: CallExpr, st: TypeState, sc: Scope): Compiled {
  const def = resolveFunction(cx, e);
  const slots = bindArguments(cx, e, def.params);
  checkClosureGiven(cx, e, def);
  // del() types its result by the event as it was before the call
  const targetBefore = st.target;
  const args = compileArguments(cx, e, def.params, slots, st, sc);
  const prepared = prepareCall(cx, e, def, args.infos);
  const closure = e.closure && def.closure ? compileClosure(cx, e.closure, def.closure, args.infos, st, sc) : undefined;
  cx.lastArgKindError = args.kindMismatch;
  if (def.name === 'del' && args.queries.some((q) => q?.isExternal)) cx.noteWrite();
  const fallible = callFallible(cx, e, def, args);
  let kind = typeof def.returns === 'function' ? def.returns(args.infos) : def.returns;
  if (def.name === 'del' && args.queries[0]) kind = deleteEffects(slots[0]!.expr as QueryExpr, st, sc, targetBefore);
  if (def.noEval) {
    const prep = prepared as Value;
    return { run: () => prep, kind, fallible, isConstant: false };
  }
  return { run: callRun(def, args, prepared, closure, e.name, cx.src, e.span), kind, fallible, isConstant: false };
}

/** The declaration of the called function; E105, with the closest name, when there is none. */
function resolveFunction(cx: CompileContext, e: CallExpr): FnDef {
  const def = cx.opts.functions.get(e.name);
  if (def) return def;
  // candidates in name order: the suggestion does not depend on how the function list is assembled
  const guess = suggest(e.name, [...cx.opts.functions.keys()].sort());
  const labels = [primary('undefined function', e.nameSpan)];
  if (guess) labels.push(primary(`did you mean "${guess}"?`, e.nameSpan));
  return cx.fail(cx.err(105, 'call to undefined function', labels, [codeNote(105)]));
}

/** Maps keyword and positional arguments onto the parameters (E108, E106), then checks the required ones are there (E107). */
function bindArguments(cx: CompileContext, e: CallExpr, params: readonly Param[]): ArgSlot[] {
  const slots: ArgSlot[] = new Array(params.length).fill(undefined);
  let positional = 0;
  for (const a of e.args) {
    if (a.name !== undefined) {
      const idx = params.findIndex((p) => p.name === a.name);
      if (idx < 0) {
        cx.fail(
          cx.err(
            108,
            'unknown function argument keyword',
            [primary('unknown keyword', a.nameSpan!), secondary(`this function accepts the following keywords: ${params.map((p) => `"${p.name}"`).join(', ')}`, e.nameSpan)],
            [codeNote(108)],
          ),
        );
      }
      slots[idx] = { expr: a.expr, span: a.expr.span };
    } else {
      if (positional >= params.length) tooManyArguments(cx, e, params);
      while (positional < params.length && slots[positional] !== undefined) positional++;
      slots[positional++] = { expr: a.expr, span: a.expr.span };
    }
  }
  params.forEach((p, i) => {
    if (p.required && slots[i] === undefined) {
      cx.fail(cx.err(107, 'missing function argument', [primary(`required argument missing: "${p.name}" (position ${i})`, e.span)], [codeNote(107)]));
    }
  });
  return slots;
}

/** E106: more positional arguments than parameters; the span covers the arguments from the first. */
function tooManyArguments(cx: CompileContext, e: CallExpr, params: readonly Param[]): never {
  const extra = e.args.slice(params.length);
  const first = extra[0]!.expr.span[0];
  const last = e.args[e.args.length - 1]!.expr.span[1];
  const span: Span = [e.args[0]!.expr.span[0] <= first ? e.args[0]!.expr.span[0] : first, last];
  return cx.fail(
    cx.err(
      106,
      'wrong number of function arguments',
      [primary('too many function arguments', span), primary(`this function takes a maximum of ${params.length} argument${params.length === 1 ? '' : 's'}`, span)],
      ['see documentation about function arguments at https://vrl.dev/expressions/#arguments', codeNote(106)],
    ),
  );
}

/** A closure is given exactly when the function takes one (E109, E111). */
function checkClosureGiven(cx: CompileContext, e: CallExpr, def: FnDef): void {
  if (e.closure && !def.closure) {
    cx.fail(cx.err(109, 'unexpected closure', [primary('unexpected closure', e.closure.span), secondary('this function does not accept a closure', e.span)], [codeNote(109)]));
  }
  if (!e.closure && def.closure) {
    cx.fail(cx.err(111, 'function argument missing closure', [primary('this function expects a closure', e.span)], [codeNote(111)]));
  }
}

/** Compiles each argument against its parameter: a fallible argument is an error of its own (E630), a kind never accepted is E110. */
function compileArguments(cx: CompileContext, e: CallExpr, params: readonly Param[], slots: readonly ArgSlot[], st: TypeState, sc: Scope): CompiledArgs {
  const pre = cx.pending.length;
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
      const q = queryArgument(cx, p, a, st, sc);
      queries.push(q.ref);
      infos.push(q.info);
      runs.push(undefined);
      checks.push(undefined);
      continue;
    }
    const c = valueArgument(cx, a, st, sc, pre);
    const got = (c.kind.bits & K.UNDEFINED ? (c.kind.bits & ~K.UNDEFINED) | K.NULL : c.kind.bits) & K.ALL;
    if (c.kind.bits !== 0 && (got & p.kind) === 0 && p.kind !== K.ALL) {
      cx.fail(argKindError(cx, 110, 'invalid argument type', e, a, p.name, p.kind, c.kind.bits));
    }
    // some of the argument's kinds are not accepted: checked at run time, and the call becomes fallible
    const needsCheck = c.kind.bits !== 0 && (got & ~p.kind) !== 0 && (p.kind & K.ANY_VALUE) !== K.ANY_VALUE;
    if (needsCheck && !typeFallible) {
      typeFallible = argKindError(cx, 110, 'invalid argument type', e, a, p.name, p.kind, c.kind.bits);
      kindMismatch = { span: a.span, param: p.name, want: p.kind, got: c.kind.bits };
    }
    checks.push(needsCheck ? p.kind : undefined);
    infos.push({ present: true, kind: c.kind, isConstant: c.isConstant, ...(c.isConstant ? { constant: c.constant! } : {}), fallible: c.fallible });
    runs.push(c.run);
    queries.push(undefined);
  }
  cx.pending.length = pre;
  return { infos, runs, queries, checks, typeFallible, kindMismatch };
}

/** A value argument; E630 when it can fail (`pre`: pending diagnostics before the call's arguments). */
function valueArgument(cx: CompileContext, a: NonNullable<ArgSlot>, st: TypeState, sc: Scope, pre: number): Compiled {
  const argPre = cx.pending.length;
  const c = cx.expr(a.expr, st, sc);
  if (c.fallible) {
    cx.pending.length = pre;
    cx.fail(
      cx.err(630, 'fallible argument', [primary('this expression can fail', a.span), primary('handle the error before passing it in as an argument', a.span)], [ERROR_HANDLING_NOTE]),
    );
  }
  cx.pending.length = argPre;
  return c;
}

/** A path argument (`del(.a)`): must be a query (E610 with E400's labels); the call receives a reference to it. */
function queryArgument(cx: CompileContext, p: Param, a: NonNullable<ArgSlot>, st: TypeState, sc: Scope): { ref: QueryRef; info: ArgInfo } {
  if (a.expr.k !== 'query') {
    cx.fail(
      cx.err(610, 'function compilation error: error[E400] unexpected expression', [primary(`unexpected expression for argument "${p.name}"`, a.span), secondary('expected: query', a.span)]),
    );
  }
  const q = a.expr;
  const c = query(cx, q, st, sc);
  const ref = queryRef(cx, q, sc, st);
  const rootKind =
    q.target.kind === 'event' ? st.target : q.target.kind === 'meta' ? st.meta : q.target.kind === 'var' ? st.locals.get(sc.lookup(q.target.name) ?? -1) ?? K.K_NULL : K.ANY;
  const root = q.target.kind === 'var' ? { kind: q.target.kind, name: q.target.name } : { kind: q.target.kind };
  return { ref, info: { present: true, kind: c.kind, isConstant: false, fallible: false, rootKind, path: q.path.map(toKSeg), root } };
}

/** The function's compile-time validation of its arguments; what it returns reaches every call (E610 with E403's labels). */
function prepareCall(cx: CompileContext, e: CallExpr, def: FnDef, infos: readonly ArgInfo[]): unknown {
  if (!def.prepare) return undefined;
  try {
    return def.prepare(infos);
  } catch (x) {
    if (!(x instanceof FunctionCompileError)) throw x;
    // same-span labels render in VRL's order only when inserted as: first, last, middle
    const labels = [primary(x.argName ? `invalid argument "${x.argName}"` : x.message, e.span)];
    if (x.received !== undefined) labels.push(primary(`received: ${x.received}`, e.span));
    if (x.argName) labels.push(primary(`error: ${x.message}`, e.span));
    return cx.fail(cx.err(610, 'function compilation error: error[E403] invalid argument', labels, [codeNote(403)]));
  }
}

/** Whether the call can fail: by the function's declaration or an argument kind not proven; with `!` it aborts instead (warning E620 when it cannot fail). */
function callFallible(cx: CompileContext, e: CallExpr, def: FnDef, args: CompiledArgs): boolean {
  const intrinsic = typeof def.fallible === 'function' ? def.fallible(args.infos) : def.fallible === true;
  const fallible = intrinsic || args.typeFallible !== undefined;
  if (!e.abort) {
    if (args.typeFallible) cx.pending.push(args.typeFallible);
    return fallible;
  }
  cx.noteAbort();
  if (!fallible) {
    cx.warnings.push(
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
function deleteEffects(q: QueryExpr, st: TypeState, sc: Scope, targetBefore: Kind): Kind {
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

/** E110 for an argument whose kind the parameter does not accept, with VRL's coercion hints. */
function argKindError(cx: CompileContext, code: number, title: string, e: CallExpr, a: NonNullable<ArgSlot>, pname: string, want: number, got: number): Diagnostic {
  const argText = cx.text(a.span);
  const argText2 = (x: Expr): string => (x.k === 'lit' && x.value instanceof RegExp ? (x.value instanceof VrlRegex ? x.value.pattern : x.value.source) : cx.text(x.span));
  const callText = `${e.name}${e.abort ? '!' : ''}(${e.args.map((x) => (x.name ? `${x.name}: ` : '') + argText2(x.expr)).join(', ')})`;
  const notes: string[] = [];
  const co = COERCERS[want];
  if (co) {
    notes.push('try: ensuring an appropriate type at runtime', '', `    ${argText} = ${co[0]}!(${argText})`, `    ${callText}`, '');
    if (co[1]) notes.push('try: coercing to an appropriate type and specifying a default value as a fallback in case coercion fails', '', `    ${argText} = ${co[1]}(${argText}) ?? ${co[2]}`, `    ${callText}`, '');
  }
  notes.push(ERROR_HANDLING_NOTE, codeNote(110));
  return cx.err(
    code,
    title,
    [primary(`this expression resolves to ${K.kindPhrase(got)}`, a.span), secondary(`but the parameter "${pname}" expects ${K.kindPhrase(want)}`, a.span)],
    notes,
  );
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
