/** Compiles literals and the values built from parts: string templates, arrays and objects. */
import { type ObjectValue, type Value, cloneValue } from '../../lib/value.js';
import type { Expr } from '../ast.js';
import * as K from '../kind.js';
import { type Kind, kindAt } from '../kind.js';
import { VrlError } from '../runtime.js';
import type { CompileContext } from './context.js';
import { readPath, toKSeg } from './paths.js';
import { variable } from './queries.js';
import type { Compiled, Run, Scope, TypeState } from './state.js';
import { copying, needsCopy } from './values.js';

/** A literal: a constant, folded into arrays and objects of constants. */
export function literal(_cx: CompileContext, e: Expr & { k: 'lit' }): Compiled {
  const v = e.value;
  return { run: () => v, kind: K.kindOfValue(v), fallible: false, constant: v, isConstant: true };
}

/** A string template: text and `{{ variable.path }}` parts; fallible unless every part is known to be a string. */
export function template(cx: CompileContext, e: Expr & { k: 'template' }, st: TypeState, sc: Scope): Compiled {
  const parts: (string | Run)[] = [];
  let fallible = false;
  for (const p of e.parts) {
    if (typeof p === 'string') {
      parts.push(p);
      continue;
    }
    const v = variable(cx, p.name, p.span, st, sc);
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

/** An array literal; items that may alias a stored value are copied, an array of constants is one constant. */
export function array(cx: CompileContext, e: Expr & { k: 'array' }, st: TypeState, sc: Scope): Compiled {
  const cs = e.items.map((x) => cx.expr(x, st, sc));
  const items = new Map<number, Kind>();
  cs.forEach((c, i) => items.set(i, K.undefinedToNull(c.kind)));
  const runs = cs.map((c, i) => (needsCopy(e.items[i]!, cx.opts.functions) ? copying(c.run) : c.run));
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

/** An object literal; values that may alias a stored value are copied, an object of constants is one constant. */
export function object(cx: CompileContext, e: Expr & { k: 'object' }, st: TypeState, sc: Scope): Compiled {
  const fields = new Map<string, Kind>();
  const keys: string[] = [];
  const runs: Run[] = [];
  let fallible = false;
  let allConst = true;
  const consts: ObjectValue = {};
  for (const [key, x] of e.entries) {
    const c = cx.expr(x, st, sc);
    fields.set(key, K.undefinedToNull(c.kind));
    keys.push(key);
    runs.push(needsCopy(x, cx.opts.functions) ? copying(c.run) : c.run);
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
