/** Percent (URL) encoding: encode_percent with VRL's named ASCII sets, decode_percent. */
import { type FnDef, FunctionCompileError, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { optStr } from './args.js';
import { fromBytes, toBytes } from './bytes.js';
import { fail } from './errors.js';

/** Characters encoded on top of controls and non-ASCII, per named set (`*` = all but alphanumerics). */
const PERCENT_SETS: Record<string, string> = (() => {
  const fragment = ' "<>`';
  const query = ' "#<>';
  const special = query + "'";
  const path = query + '?`{}';
  const userinfo = path + '/:;=@[\\]^|';
  const component = userinfo + '$%&+,';
  return { NON_ALPHANUMERIC: '*', CONTROLS: '', FRAGMENT: fragment, QUERY: query, SPECIAL: special, PATH: path, USERINFO: userinfo, COMPONENT: component, WWW_FORM_URLENCODED: component + "!'()~" };
})();

/** The functions of this file, for the stdlib list. */
export const percentEncodingFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'encode_percent',
    description: 'Percent-encodes (URL-encodes) text.',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'ascii_set', kind: K.BYTES },
    ],
    fallible: (args) => args[1]!.present && !args[1]!.isConstant,
    prepare: (args) => {
      const a = args[1]!;
      if (a.present && a.isConstant && PERCENT_SETS[String(a.constant)] === undefined) throw new FunctionCompileError('unknown ascii_set', 'ascii_set');
      return undefined;
    },
    returns: K.K_BYTES,
    call: ([v, set]) => {
      const extra = PERCENT_SETS[optStr(set, 'NON_ALPHANUMERIC')];
      if (extra === undefined) return fail('unknown ascii_set');
      let out = '';
      for (const b of toBytes(v as string)) {
        const c = String.fromCharCode(b);
        const encode = b < 0x20 || b >= 0x7f || (extra === '*' ? !/[A-Za-z0-9]/.test(c) : extra.includes(c));
        out += encode ? '%' + b.toString(16).toUpperCase().padStart(2, '0') : c;
      }
      return out;
    },
  }),
  defineFunction({
    name: 'decode_percent',
    description: 'Decodes percent-encoded (URL) text.',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    returns: K.K_BYTES,
    call: ([v]) => {
      const s = v as string;
      const out: number[] = [];
      const src = toBytes(s);
      for (let i = 0; i < src.length; i++) {
        const b = src[i]!;
        const hex = String.fromCharCode(src[i + 1] ?? 0, src[i + 2] ?? 0);
        if (b === 0x25 && /^[0-9A-Fa-f]{2}$/.test(hex)) {
          out.push(parseInt(hex, 16));
          i += 2;
        } else out.push(b);
      }
      return fromBytes(Buffer.from(out));
    },
  }),
];
