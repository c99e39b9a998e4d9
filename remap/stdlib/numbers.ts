/** Number functions: floor, ceil, round, abs, mod, format_int, format_number, parse_int, parse_float. */
import { type Value, Float } from '../../lib/value.js';
import { type ArgInfo, type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { opRem } from '../runtime.js';
import { num, optInt } from './args.js';
import { parseFloatStrict } from './coercions.js';
import { fail } from './errors.js';

const N = K.INTEGER | K.FLOAT;
const sameKind = (args: readonly ArgInfo[]): K.Kind => (args[0]!.kind.isOnly(K.INTEGER) ? K.K_INTEGER : args[0]!.kind.isOnly(K.FLOAT) ? K.K_FLOAT : K.k(N));

function rounding(name: string, description: string, f: (x: number) => number): FnDef {
  return defineFunction({
    name,
    description,
    params: [
      { name: 'value', kind: N, required: true },
      { name: 'precision', kind: K.INTEGER },
    ],
    returns: sameKind,
    call: ([v, p]) => {
      if (typeof v === 'number') return v;
      const prec = optInt(p, 0);
      const m = Math.pow(10, prec);
      return new Float(f(num(v) * m) / m);
    },
  });
}

/** The shortest decimal text of a number without exponent (`1e-7` is `0.0000001`), as a decimal type prints it. */
function plainDecimal(n: number): string {
  const text = String(n);
  const m = /^(-?)(\d)(?:\.(\d+))?e([-+]\d+)$/.exec(text);
  if (!m) return text;
  const digits = m[2]! + (m[3] ?? '');
  const point = 1 + Number(m[4]);
  const body = point <= 0 ? '0.' + '0'.repeat(-point) + digits : point >= digits.length ? digits + '0'.repeat(point - digits.length) : digits.slice(0, point) + '.' + digits.slice(point);
  return m[1]! + body;
}

/** Rounds half away from zero, as Rust's f64::round. */
const roundHalfAway = (x: number): number => (x < 0 ? -Math.round(-x) : Math.round(x));

/** The functions of this file, for the stdlib list. */
export const numberFunctions: readonly FnDef[] = [
  rounding('floor', 'Rounds a number down, optionally to a number of decimal places.', Math.floor),
  rounding('ceil', 'Rounds a number up, optionally to a number of decimal places.', Math.ceil),
  rounding('round', 'Rounds a number, optionally to a number of decimal places.', roundHalfAway),
  defineFunction({
    name: 'abs',
    description: 'Absolute value of a number.',
    params: [{ name: 'value', kind: N, required: true }],
    returns: sameKind,
    call: ([v]) => (typeof v === 'number' ? Math.abs(v) : new Float(Math.abs(num(v)))),
  }),
  defineFunction({
    name: 'mod',
    description: 'Remainder of an integer division.',
    params: [
      { name: 'value', kind: N, required: true },
      { name: 'modulus', kind: N, required: true },
    ],
    fallible: (args) => {
      const m = args[1]!;
      return !(m.isConstant && num(m.constant) !== 0 && !Number.isNaN(num(m.constant)));
    },
    returns: (args) => (args[0]!.kind.isOnly(K.INTEGER) && args[1]!.kind.isOnly(K.INTEGER) ? K.K_INTEGER : K.k(N)),
    call: ([v, m]) => opRem(v!, m!),
  }),
  defineFunction({
    name: 'format_int',
    description: 'Formats an integer in a base from 2 to 36.',
    params: [
      { name: 'value', kind: K.INTEGER, required: true },
      { name: 'base', kind: K.INTEGER },
    ],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v, b]) => {
      const base = optInt(b, 10);
      if (base < 2 || base > 36) return fail('base must be between 2 and 36 (inclusive)');
      return (v as number).toString(base);
    },
  }),
  defineFunction({
    name: 'format_number',
    description: 'Formats a number with a scale and decimal/grouping separators.',
    params: [
      { name: 'value', kind: N, required: true },
      { name: 'scale', kind: K.INTEGER },
      { name: 'decimal_separator', kind: K.BYTES },
      { name: 'grouping_separator', kind: K.BYTES },
    ],
    returns: K.K_BYTES,
    call: ([v, s, d, g]) => {
      let text = plainDecimal(num(v));
      const neg = text.startsWith('-');
      if (neg) text = text.slice(1);
      let [int, frac] = text.split('.') as [string, string | undefined];
      if (s !== undefined && s !== null) {
        // VRL truncates to the scale (1234.567 at scale 2 is 1234.56) and pads with zeros; past
        // 100 digits a double has nothing left to show, so the padding stops there
        const scale = Math.min(100, Math.max(0, s as number));
        frac = scale === 0 ? undefined : (frac ?? '').slice(0, scale).padEnd(scale, '0');
      }
      if (typeof g === 'string') int = int.replace(/\B(?=(\d{3})+(?!\d))/g, g);
      return (neg ? '-' : '') + int + (frac !== undefined ? (typeof d === 'string' ? d : '.') + frac : '');
    },
  }),
  defineFunction({
    name: 'parse_int',
    description: 'Parses a string into an integer, optionally in a base.',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'base', kind: K.INTEGER },
    ],
    fallible: true,
    returns: K.K_INTEGER,
    call: ([v, b]) => {
      let s = v as string;
      let base = b === undefined || b === null ? 10 : (b as number);
      if (b === undefined || b === null) {
        const m = /^(-?)0([xbo])(.*)$/i.exec(s);
        if (m) {
          base = m[2]!.toLowerCase() === 'x' ? 16 : m[2]!.toLowerCase() === 'b' ? 2 : 8;
          s = m[1]! + m[3]!;
        } else if (/^-?0\d/.test(s)) {
          base = 8;
        }
      }
      if (base < 2 || base > 36) return fail('invalid base');
      const digits = '0123456789abcdefghijklmnopqrstuvwxyz'.slice(0, base);
      const body = s.replace(/^[-+]/, '').toLowerCase();
      if (body === '' || [...body].some((c) => !digits.includes(c))) return fail('could not parse integer: invalid digit found in string');
      const r = parseInt(s, base);
      return r as Value;
    },
  }),
  defineFunction({
    name: 'parse_float',
    description: 'Parses a string into a float.',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_FLOAT,
    call: ([v]) => new Float(parseFloatStrict(v as string)),
  }),
];
