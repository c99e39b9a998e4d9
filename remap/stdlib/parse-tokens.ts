/** parse_tokens: whitespace-separated tokens, keeping quoted and bracketed runs whole. */
import type { Value } from '../../lib/value.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';

/** Splits on whitespace keeping "quoted" and [bracketed] runs whole; `-` becomes null. */
function parseTokens(s: string): Value[] {
  const out: Value[] = [];
  let i = 0;
  while (i < s.length) {
    while (i < s.length && /\s/.test(s[i]!)) i++;
    if (i >= s.length) break;
    const c = s[i];
    if (c === '"') {
      let j = i + 1;
      while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
      out.push(s.slice(i + 1, j));
      i = j + 1;
    } else if (c === '[') {
      const j = s.indexOf(']', i);
      const end = j < 0 ? s.length : j;
      out.push(s.slice(i + 1, end));
      i = end + 1;
    } else {
      let j = i;
      while (j < s.length && !/\s/.test(s[j]!)) j++;
      const tok = s.slice(i, j);
      out.push(tok === '-' ? null : tok);
      i = j;
    }
  }
  return out;
}

/** The functions of this file, for the stdlib list. */
export const tokenFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'parse_tokens',
    description: 'Splits a string into whitespace-separated tokens, keeping quoted and bracketed parts.',
    fresh: true,
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    returns: K.arrayOf(K.k(K.BYTES | K.NULL)),
    call: ([v]) => parseTokens(v as string),
  }),
];
