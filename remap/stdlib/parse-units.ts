/** Quantities with units: parse_duration and parse_bytes. */
import { Float } from '../../lib/value.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { optStr } from './args.js';
import { fail } from './errors.js';

/** Unit sizes in nanoseconds (integers, so sums stay exact). */
const DURATION_UNITS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, ms: 1e6, cs: 1e7, ds: 1e8, s: 1e9, m: 60e9, h: 3600e9, d: 86400e9, w: 604800e9 };

function parseDuration(s: string, unit: string): Float {
  const u = DURATION_UNITS[unit];
  if (u === undefined) return fail('unknown unit format');
  const re = /(-?\d+(?:\.\d+)?)\s*(ns|us|µs|ms|cs|ds|s|m|h|d|w)/y;
  let total = 0;
  let pos = 0;
  const text = s.trim();
  if (text === '') return fail(`unable to parse duration: '${s}'`);
  while (pos < text.length) {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (!m) return fail(`unable to parse duration: '${s}'`);
    total += Number(m[1]) * DURATION_UNITS[m[2]!]!;
    pos = re.lastIndex;
    while (text[pos] === ' ') pos++;
  }
  return new Float(total / u);
}

/** The functions of this file, for the stdlib list. */
export const unitFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'parse_duration',
    description: 'Parses a duration such as `1.5s` into a number of a unit.',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'unit', kind: K.BYTES, required: true },
    ],
    fallible: true,
    returns: K.K_FLOAT,
    call: ([v, u]) => parseDuration(v as string, u as string),
  }),
  defineFunction({
    name: 'parse_bytes',
    description: 'Parses a human-readable byte size into a number of a unit.',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'unit', kind: K.BYTES, required: true },
      { name: 'base', kind: K.BYTES },
    ],
    fallible: true,
    returns: K.K_FLOAT,
    call: ([v, u, b]) => {
      const base = optStr(b, '2');
      if (base !== '2' && base !== '10') return fail(`unsupported base: ${base}`);
      const m = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*$/.exec(v as string);
      const scale = (name: string): number | undefined => {
        const decimal: Record<string, number> = { B: 1, kB: 1e3, KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12, PB: 1e15, EB: 1e18 };
        const binary: Record<string, number> = { B: 1, kB: 1024, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4, PB: 1024 ** 5, EB: 1024 ** 6 };
        const iec: Record<string, number> = { KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4, PiB: 1024 ** 5, EiB: 1024 ** 6 };
        return iec[name] ?? (base === '2' ? binary : decimal)[name];
      };
      const from = m ? scale(m[2]!) : undefined;
      const to = scale(u as string);
      if (!m || from === undefined) return fail(`unable to parse bytes: '${v}'`);
      if (to === undefined) return fail(`unknown unit: ${u}`);
      return new Float((Number(m[1]) * from) / to);
    },
  }),
];
