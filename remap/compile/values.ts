/** Value helpers of compiled code: defaults, copies of aliased containers, sequencing. */
import { type Value, Float, Timestamp, cloneValue, isObject } from '../../lib/value.js';
import type { Expr } from '../ast.js';
import type { FnDef } from '../function.js';
import * as K from '../kind.js';
import type { Kind } from '../kind.js';
import type { Ctx } from '../runtime.js';
import type { Run } from './state.js';

/** The value `ok, err = …` stores in `ok` when the expression fails: the empty value of its one kind, else null. */
export function defaultOf(kind: Kind): Value {
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

/** Whether a value is an object or an array (the values that can be aliased). */
export const isContainer = (v: Value): boolean => typeof v === 'object' && v !== null && (Array.isArray(v) || isObject(v));

/** Whether a value produced by this expression may alias another stored value. */
export function needsCopy(e: Expr, fns?: ReadonlyMap<string, FnDef>): boolean {
  return e.k === 'query' || e.k === 'var' || (e.k === 'call' && fns !== undefined && !fns.get(e.name)?.fresh);
}

/** Wraps a run so that a container it yields is a deep copy. */
export function copying(r: Run): Run {
  return (ctx) => {
    const v = r(ctx);
    return isContainer(v) ? cloneValue(v) : v;
  };
}

/** The run an assignment stores: copied unless the expression always yields a fresh value (or `|=` merges). */
export function copyIfNeeded(e: Expr, r: Run, merge: boolean, fns: ReadonlyMap<string, FnDef>): Run {
  if (merge) return r;
  if (e.k === 'array' || e.k === 'object' || e.k === 'lit' || e.k === 'template') return r;
  if (e.k === 'call' && fns.get(e.name)?.fresh) return r;
  return copying(r);
}

/** Runs expressions in order and yields the last one's value (a block, a program); one needs no loop. */
export function sequence(runs: readonly ((ctx: Ctx) => Value)[]): (ctx: Ctx) => Value {
  const n = runs.length;
  if (n === 1) return runs[0]!;
  return (ctx) => {
    let v: Value = null;
    for (let i = 0; i < n; i++) v = runs[i]!(ctx);
    return v;
  };
}
