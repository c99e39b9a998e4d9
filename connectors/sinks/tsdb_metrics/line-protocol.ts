/**
 * Line-protocol text pieces (the InfluxDB line protocol reference): escaping by the server's rules, numbers in the
 * forms the server parses, timestamps in the write precision.
 */
import type { Timestamp } from '../../../lib/value.js';

/**
 * The server unescapes `\,` and `\ ` in measurements and also `\=` in tag keys, tag values and
 * field keys; a backslash before anything else is kept as written. So a backslash is never
 * escaped (InfluxDB 1.x stores `\\` as two backslashes), and text ending in one, or holding a line
 * break, cannot be written at all.
 */
const KEY_SPECIAL = /[, =]/;
const KEY_SPECIAL_ALL = /[, =]/g;
const MEASUREMENT_SPECIAL = /[, ]/;
const MEASUREMENT_SPECIAL_ALL = /[, ]/g;
const UNWRITABLE = /\\$|[\n\r]/;

/** Tag key, tag value or field key escaped; undefined when line protocol cannot carry the text. */
export function escapeKey(s: string): string | undefined {
  if (UNWRITABLE.test(s)) return undefined;
  return KEY_SPECIAL.test(s) ? s.replace(KEY_SPECIAL_ALL, '\\$&') : s;
}

/** A measurement escaped; undefined when line protocol cannot carry the text. */
export function escapeMeasurement(s: string): string | undefined {
  if (UNWRITABLE.test(s)) return undefined;
  return MEASUREMENT_SPECIAL.test(s) ? s.replace(MEASUREMENT_SPECIAL_ALL, '\\$&') : s;
}

/**
 * Shortest round-trip decimal without an exponent (`1`, `0.5`, `0.0000001`,
 * `1000000000000000000000`), as in field values and bucket or quantile names; infinities are
 * `inf` / `-inf` (only in names: the caller drops non-finite field values).
 */
export function formatFloat(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'NaN' : x > 0 ? 'inf' : '-inf';
  const s = String(x);
  const e = s.indexOf('e');
  if (e < 0) return s;
  const neg = s[0] === '-';
  const mantissa = s.slice(neg ? 1 : 0, e);
  const exp = Number(s.slice(e + 1));
  const dot = mantissa.indexOf('.');
  const digits = dot < 0 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  const intLen = (dot < 0 ? mantissa.length : dot) + exp;
  let out: string;
  if (intLen <= 0) out = '0.' + '0'.repeat(-intLen) + digits;
  else if (intLen >= digits.length) out = digits + '0'.repeat(intLen - digits.length);
  else out = digits.slice(0, intLen) + '.' + digits.slice(intLen);
  return neg ? '-' + out : out;
}

/** A count as an unsigned field value: digits plus `i` (generation 1) or `u` (generation 2). */
export function formatUnsigned(n: number, suffix: 'i' | 'u'): string {
  const whole = n > 0 ? Math.round(n) : 0;
  return (whole <= Number.MAX_SAFE_INTEGER ? String(whole) : BigInt(whole).toString()) + suffix;
}

/** Write precisions; the value is the query parameter of each generation. */
export type Precision = 'ns' | 'us' | 'ms' | 's';
/** Generation 1 names microseconds `u` (it reads `us` as nanoseconds); generation 2 `us`. */
export const PRECISION_PARAM: Record<1 | 2, Record<Precision, string>> = {
  1: { ns: 'ns', us: 'u', ms: 'ms', s: 's' },
  2: { ns: 'ns', us: 'us', ms: 'ms', s: 's' },
};

/** The timestamp in the write precision, as integer text (nanoseconds exceed 2^53: built as text). */
export function formatTime(ms: number, ns: number, precision: Precision): string {
  switch (precision) {
    case 's':
      return String(Math.floor(ms / 1000));
    case 'ms':
      return String(ms);
    case 'us':
      return String(ms * 1000 + Math.floor(ns / 1000));
    default:
      if (ms > 0) return String(ms) + String(ns).padStart(6, '0');
      return (BigInt(ms) * 1_000_000n + BigInt(ns)).toString();
  }
}

/** Later of two instants (ms, then ns). */
export const later = (a: Timestamp, b: Timestamp): Timestamp => (b.ms > a.ms || (b.ms === a.ms && b.ns > a.ns) ? b : a);
