/**
 * Reading a log value as a metric number, as Vector does: the value's text form parsed as an f64
 * (`"2.5"`, `"-3e2"`, `"inf"`, `"NaN"` read; `" 2"`, `"0x10"`, `"1_000"`, `"true"` do not).
 */
import { Float, type Value, valueToString } from '../../../lib/value.js';

/** The f64 grammar of Rust's `str::parse`: sign, digits with an optional point and exponent, or inf / infinity / nan in any case. */
const F64 = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i;

/** The number a value stands for, or undefined when its text is not a float literal. */
export function numberOf(v: Value): number | undefined {
  if (typeof v === 'number') return v;
  if (v instanceof Float) return v.value;
  const text = valueToString(v);
  if (!F64.test(text)) return undefined;
  const lower = text.toLowerCase();
  if (lower.endsWith('inf') || lower.endsWith('infinity')) return lower.startsWith('-') ? -Infinity : Infinity;
  if (lower.endsWith('nan')) return NaN;
  return Number(text);
}
