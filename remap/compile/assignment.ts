/**
 * Compiles assignments: `target = expr`, the infallible form `ok, err = expr`, and the merge
 * `target |= expr`; each stores into the event, the metadata, a variable or `_` (discarded).
 */
import { type Value, cloneValue, isObject } from '../../lib/value.js';
import type { AssignTarget, Expr, Segment } from '../ast.js';
import { type Diagnostic, ERROR_HANDLING_NOTE, type Label, type Span, codeNote, primary, secondary } from '../diagnostic.js';
import * as K from '../kind.js';
import { type Kind, kindAt, kindSet, union } from '../kind.js';
import { type Ctx, VrlError } from '../runtime.js';
import type { CompileContext } from './context.js';
import { op } from './operators.js';
import { queryKey, targetToExpr, toKSeg, writePath } from './paths.js';
import { type Compiled, type Scope, Skip, type TypeState } from './state.js';
import { copyIfNeeded, defaultOf } from './values.js';

type AssignExpr = Expr & { k: 'assign' };

/** Stores one value into an assignment target. */
type Store = (ctx: Ctx, v: Value) => void;

/** An assignment of any form; its value is the assigned value (or, for `ok, err =`, the error message on failure). */
export function assign(cx: CompileContext, e: AssignExpr, st: TypeState, sc: Scope): Compiled {
  const pre = cx.pending.length;
  const opEnd = cx.src.indexOf('=', e.err ? e.err.span[1] : e.target.span[1]) + 1;
  const assignSpan: Span = [e.target.span[0], opEnd];
  const rhs = assignedValue(cx, e, st, sc, opEnd);
  if (e.err) return infallibleAssign(cx, e, e.err, rhs, st, sc, pre, assignSpan);
  return singleAssign(cx, e, rhs, st, sc, pre, assignSpan);
}

/** The right side; for `|=` the merge of the target with it. If it fails to compile, later reads of the targets stay quiet. */
function assignedValue(cx: CompileContext, e: AssignExpr, st: TypeState, sc: Scope, opEnd: number): Compiled {
  try {
    if (!e.merge) return cx.expr(e.expr, st, sc);
    const lhsExpr = targetToExpr(e.target);
    return op(cx, { k: 'op', op: '|', lhs: lhsExpr, rhs: e.expr, opSpan: [opEnd - 2, opEnd], span: e.span }, st, sc, true);
  } catch (x) {
    if (x instanceof Skip) {
      for (const t of [e.target, e.err]) {
        if (t && t.kind === 'var') cx.skipVars.add(t.name);
        else if (t && (t.kind === 'event' || t.kind === 'meta')) cx.skipQueries.add(queryKey(t.kind, t.path));
      }
    }
    throw x;
  }
}

/** `ok, err = expr`: on failure `ok` gets the kind's default and `err` the message; E104 when expr cannot fail. */
function infallibleAssign(cx: CompileContext, e: AssignExpr, errTarget: AssignTarget, rhs: Compiled, st: TypeState, sc: Scope, pre: number, assignSpan: Span): Compiled {
  cx.pending.length = pre;
  if (!rhs.fallible) {
    cx.fail(
      cx.err(
        104,
        'unnecessary error assignment',
        [
          primary('this error assignment is unnecessary', errTarget.span),
          secondary("because this expression can't fail", e.expr.span),
          secondary(`use: ${cx.text(e.target.span)} = ${cx.text(e.expr.span)}`, e.target.span),
        ],
        [ERROR_HANDLING_NOTE, codeNote(104)],
      ),
    );
  }
  if (e.target.kind === 'noop' && errTarget.kind === 'noop') unnecessaryNoop(cx, e, [e.target.span[0], errTarget.span[1]]);
  const okKind = union(K.undefinedToNull(rhs.kind), K.kindOfValue(defaultOf(rhs.kind)));
  const def = defaultOf(rhs.kind);
  const setOk = store(cx, e.target, okKind, st, sc, assignSpan);
  const setErr = store(cx, errTarget, K.k(K.BYTES | K.NULL), st, sc, assignSpan);
  const r = copyIfNeeded(e.expr, rhs.run, e.merge, cx.opts.functions);
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

/** `target = expr` and `target |= expr`: the value must not be able to fail (E103). */
function singleAssign(cx: CompileContext, e: AssignExpr, rhs: Compiled, st: TypeState, sc: Scope, pre: number, assignSpan: Span): Compiled {
  const fallibility = cx.pending[pre];
  if (fallibility) {
    cx.pending.length = pre;
    unhandledFallibleAssignment(cx, e, fallibility, assignSpan);
  }
  if (e.target.kind === 'noop') unnecessaryNoop(cx, e, [e.target.span[0], Math.max(e.target.span[0], e.expr.span[0] - 1)]);
  const rhsDisplay = e.expr.k === 'object' && e.expr.entries.length === 0 ? '{  }' : cx.text(e.expr.span);
  const set = store(cx, e.target, rhs.kind, st, sc, assignSpan, rhs.isConstant && !e.merge ? rhs.constant : undefined, rhsDisplay);
  const r = copyIfNeeded(e.expr, rhs.run, e.merge, cx.opts.functions);
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

/** E103, with VRL's hints: add `!` to the call (naming the argument whose kind is not proven), or assign the error too. */
function unhandledFallibleAssignment(cx: CompileContext, e: AssignExpr, fallibility: Diagnostic, assignSpan: Span): never {
  const exprText = cx.text(e.expr.span);
  const labels: Label[] = [primary("this expression is fallible because at least one argument's type cannot be verified to be valid", e.expr.span)];
  if (e.expr.k === 'call') labels.push(...abortHint(cx, e.expr, fallibility, exprText));
  labels.push(secondary('or change this to an infallible assignment:', assignSpan), secondary(`${cx.text(e.target.span)}, err = ${exprText}`, assignSpan));
  return cx.fail(
    cx.err(103, 'unhandled fallible assignment', labels, [
      ERROR_HANDLING_NOTE,
      ...(e.expr.k === 'call' ? ['see functions characteristics documentation at https://vrl.dev/expressions/#function-call-characteristics'] : []),
      codeNote(103),
    ]),
  );
}

/** E103's labels for a fallible call: which argument's kind is not proven, and the call with `!`. */
function abortHint(cx: CompileContext, call: Expr & { k: 'call' }, fallibility: Diagnostic, exprText: string): Label[] {
  const withBang = exprText.replace(call.name, call.name + '!');
  const argLabel = fallibility.code === 110 ? fallibility.labels : undefined;
  if (argLabel) {
    const got = argLabel[0]!.message.replace('this expression resolves to ', '');
    const m = /parameter "([^"]+)" expects (.*)$/.exec(argLabel[1]!.message);
    const argText = cx.text(argLabel[0]!.span);
    const gotText = got.replace(/^the exact type |^one of /, '');
    const expText = (m?.[2] ?? '').replace(/^the exact type |^one of /, '');
    return [
      primary(`\`${argText}\` argument type is \`${gotText}\` and this function expected a parameter \`${m?.[1]}\` of type \`${expText}\``, call.span),
      primary(`update the expression to be infallible by adding a \`!\`: \`${withBang}\``, call.span),
    ];
  }
  const bad = cx.lastArgKindError;
  if (!bad) return [primary('update the expression to be infallible by adding a `!`', call.span)];
  return [
    primary(`\`${cx.text(bad.span)}\` argument type is \`${K.kindName(bad.got)}\` and this function expected a parameter \`${bad.param}\` of type \`${K.kindName(bad.want)}\``, call.span),
    primary(`update the expression to be infallible by adding a \`!\`: \`${withBang}\``, call.span),
  ];
}

/** E640: `_ = expr` (or `_, _ = expr`) discards a value that needs no discarding; VRL's spans. */
function unnecessaryNoop(cx: CompileContext, e: AssignExpr, assignSpan: Span): never {
  const targetSpan = e.target.span;
  return cx.fail(
    cx.err(640, 'unnecessary no-op assignment', [
      primary('this no-op assignment has no effect', e.expr.span),
      secondary('either assign to a path or variable here', targetSpan),
      secondary('or remove the assignment', assignSpan),
    ]),
  );
}

/** Compiles the store of a value into a target; updates the type state. */
function store(cx: CompileContext, t: AssignTarget, kind: Kind, st: TypeState, sc: Scope, opSpan: Span, constant?: Value, rhsText = '…'): Store {
  const vkind = K.undefinedToNull(kind);
  if (t.kind === 'noop') return () => {};
  if (t.kind === 'event' || t.kind === 'meta') return storeExternal(cx, t, vkind, st, opSpan, rhsText);
  let slot = sc.lookup(t.name);
  if (slot !== undefined && t.path.length) checkParent(cx, t.path, st.locals.get(slot) ?? K.K_NULL, t.span, rhsText, t.name);
  if (slot === undefined) slot = cx.newSlot(t.name, sc);
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

/** The store into the event or its metadata (E315 for a read-only path, E642 for a parent that is no container). */
function storeExternal(cx: CompileContext, t: AssignTarget & { kind: 'event' | 'meta' }, vkind: Kind, st: TypeState, opSpan: Span, rhsText: string): Store {
  cx.noteWrite();
  checkReadOnly(cx, t, opSpan);
  checkParent(cx, t.path, t.kind === 'event' ? st.target : st.meta, t.span, rhsText);
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

/** E642: assigning into a field/index of a parent known not to be an object/array. */
function checkParent(cx: CompileContext, path: readonly Segment[], root: Kind, span: Span, rhsText: string, varName?: string): void {
  if (path.length === 0) return;
  const ks = path.map(toKSeg);
  const parent = kindAt(root, ks.slice(0, -1));
  if (parent.isAny) return;
  const last = path[path.length - 1]!;
  const wantObject = !('index' in last);
  if (parent.has(wantObject ? K.OBJECT : K.ARRAY)) return;
  if (parent.has(K.UNDEFINED)) {
    if (path.length === 1) return;
    const grand = kindAt(root, ks.slice(0, -2));
    const next = path[path.length - 2]!;
    if (grand.isAny || grand.has('index' in next ? K.ARRAY : K.OBJECT)) return;
  }
  parentRejects(cx, path, parent, span, rhsText, varName);
}

/** E642's diagnostic; the note spells the paths as VRL prints them. */
function parentRejects(cx: CompileContext, path: readonly Segment[], parent: Kind, span: Span, rhsText: string, varName: string | undefined): never {
  const last = path[path.length - 1]!;
  const wantObject = !('index' in last);
  const text = cx.text(span);
  const cut = wantObject ? text.lastIndexOf('.') : text.lastIndexOf('[');
  const parentEnd = span[0] + (cut === 0 ? 1 : cut);
  const segStart = span[0] + (wantObject ? cut + 1 : cut);
  // a variable's path follows its name without a dot
  const segText = (sg: Segment, first: boolean): string =>
    'index' in sg ? `[${sg.index}]` : `${first ? '' : '.'}${'field' in sg ? sg.field : `(${sg.coalesce.join(' | ')})`}`;
  const parentSegs = path.slice(0, -1);
  const parentPath = parentSegs.map((sg, i) => segText(sg, i === 0)).join('');
  const parentText = varName !== undefined ? varName + parentPath : parentSegs.length === 0 ? text.slice(0, parentEnd - span[0]) : '.' + parentPath;
  const fullText = parentText + segText(last, varName === undefined && parentSegs.length === 0);
  return cx.fail(
    cx.err(
      642,
      'parent path segment rejects this mutation',
      [
        primary(wantObject ? 'querying a field of a non-object type is unsupported' : 'indexing into a non-array type is unsupported', [segStart, span[1]]),
        secondary(`this path resolves to a value of type ${K.kindName(parent.bits)}`, [span[0], parentEnd]),
      ],
      [`try: change parent value to ${wantObject ? 'object' : 'array'}, before assignment`, '', `    ${parentText} = ${wantObject ? '{}' : '[]'}`, `    ${fullText} = ${rhsText}`, '', ERROR_HANDLING_NOTE],
    ),
  );
}

/** E315: the target is, or lies below a recursive, read-only path. */
function checkReadOnly(cx: CompileContext, t: AssignTarget & { kind: 'event' | 'meta' }, span: Span): void {
  const ro = cx.opts.readOnly;
  if (!ro || ro.length === 0) return;
  const path = t.path.map((s) => ('field' in s ? s.field : 'index' in s ? s.index : s.coalesce[0]!));
  for (const r of ro) {
    if (r.meta !== (t.kind === 'meta')) continue;
    const n = Math.min(r.path.length, path.length);
    let prefixEq = true;
    for (let i = 0; i < n; i++) if (r.path[i] !== path[i]) prefixEq = false;
    if (!prefixEq) continue;
    if (path.length <= r.path.length || r.recursive) {
      cx.fail(cx.err(315, 'mutation of read-only value', [primary('mutation of read-only value', span)]));
    }
  }
}
