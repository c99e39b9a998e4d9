/** Argument helpers of the standard library: optional arguments with defaults, numbers, parameter declarations, result kinds. */
import { type Value, Float } from '../../lib/value.js';
import type { ArgInfo, Param } from '../function.js';
import * as K from '../kind.js';

/** An optional string argument, or the default when omitted or null. */
export const optStr = (v: Value | undefined, dflt: string): string => (v === undefined || v === null ? dflt : (v as string));
/** An optional integer argument, or the default when omitted or null. */
export const optInt = (v: Value | undefined, dflt: number): number => (v === undefined || v === null ? dflt : (v as number));

/** Number value of an integer or float. */
export function num(v: Value | undefined): number {
  if (typeof v === 'number') return v;
  if (v instanceof Float) return v.value;
  return NaN;
}

/** A required parameter of these accepted kinds. */
export const req = (name: string, kind: number): Param => ({ name, kind, required: true });
/** An optional parameter of these accepted kinds. */
export const opt = (name: string, kind: number): Param => ({ name, kind });

/** Result kind of a function that returns the container kind of its first argument: array, object, or either. */
export const sameContainer = (args: readonly ArgInfo[]): K.Kind => (args[0]!.kind.isOnly(K.ARRAY) ? K.K_ARRAY : args[0]!.kind.isOnly(K.OBJECT) ? K.K_OBJECT : K.k(K.ARRAY | K.OBJECT));
