/** CSV records: parse_csv and encode_csv. */
import type { Value } from '../../lib/value.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { optStr } from './args.js';
import { scalarToString } from './coercions.js';
import { fail } from './errors.js';

/** Fields of the first record of `s`; `""` inside quotes is one quote. */
function parseCsvLine(s: string, d: string): string[] {
  const out: string[] = [];
  let i = 0;
  let field = '';
  let quoted = false;
  let started = false;
  for (; i < s.length; i++) {
    const c = s[i]!;
    if (quoted) {
      if (c === '"') {
        if (s[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"' && !started) {
      quoted = true;
      started = true;
    } else if (c === d) {
      out.push(field);
      field = '';
      started = false;
    } else if (c === '\n' || c === '\r') {
      break;
    } else {
      field += c;
      started = true;
    }
  }
  out.push(field);
  return out;
}

function csvField(v: Value, delim: string): string {
  const s = scalarToString(v) ?? fail('csv encoding only supports scalar values');
  return /["\n\r]/.test(s) || s.includes(delim) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The functions of this file, for the stdlib list. */
export const csvFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'parse_csv',
    description: 'Parses one CSV record into an array of strings.',
    fresh: true,
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'delimiter', kind: K.BYTES },
    ],
    fallible: true,
    returns: K.arrayOf(K.K_BYTES),
    call: ([v, d]) => {
      const delim = optStr(d, ',');
      if (delim.length !== 1) return fail('delimiter must be a single character');
      return parseCsvLine(v as string, delim);
    },
  }),
  defineFunction({
    name: 'encode_csv',
    description: 'Encodes an array of values as one CSV record.',
    params: [
      { name: 'value', kind: K.ARRAY, required: true },
      { name: 'delimiter', kind: K.BYTES },
    ],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v, d]) => {
      const delim = optStr(d, ',');
      if (delim.length !== 1) return fail('delimiter must be a single character');
      return (v as Value[]).map((x) => csvField(x, delim)).join(delim);
    },
  }),
];
