/** VRL's display form of values, used in messages (`assert_eq`, `log`): strings quoted, `t'…'`, `r'…'`. */
import { type Value, Float, Timestamp, formatFloat, isObject } from './value.js';

/** Renders a value the way VRL prints it in diagnostics and logs. */
export function displayValue(v: Value): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Float) return formatFloat(v.value);
  if (v instanceof Timestamp) return `t'${v.toString()}'`;
  // a remap regex keeps the pattern as written in `pattern`; a plain RegExp only has `source`
  if (v instanceof RegExp) return `r'${'pattern' in v && typeof v.pattern === 'string' ? v.pattern : v.source}'`;
  if (Array.isArray(v)) return '[' + v.map(displayValue).join(', ') + ']';
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    if (keys.length === 0) return '{  }';
    return '{ ' + keys.map((k) => `${JSON.stringify(k)}: ${displayValue(v[k]!)}`).join(', ') + ' }';
  }
  return String(v);
}
