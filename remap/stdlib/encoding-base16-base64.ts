/** Base64 and Base16 (hexadecimal) encodings. */
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { optStr } from './args.js';
import { fromBytes, toBytes } from './bytes.js';
import { fail } from './errors.js';

/** `s` without its trailing `=` (a loop: `/=+$/` is quadratic in a run of `=` that does not end the text). */
function withoutPadding(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 0x3d) end--;
  return s.slice(0, end);
}

/** The functions of this file, for the stdlib list. */
export const baseEncodingFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'encode_base64',
    description: 'Encodes bytes as Base64 text.',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'padding', kind: K.BOOLEAN },
      { name: 'charset', kind: K.BYTES },
    ],
    returns: K.K_BYTES,
    call: ([v, p, c]) => {
      let out = toBytes(v as string).toString(optStr(c, 'standard') === 'url_safe' ? 'base64url' : 'base64');
      if (optStr(c, 'standard') === 'url_safe' && p !== false) while (out.length % 4) out += '=';
      if (p === false) out = withoutPadding(out);
      return out;
    },
  }),
  defineFunction({
    name: 'decode_base64',
    description: 'Decodes Base64 text (standard or URL-safe alphabet).',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'charset', kind: K.BYTES },
    ],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v, c]) => {
      const s = withoutPadding(v as string);
      const ok = optStr(c, 'standard') === 'url_safe' ? /^[A-Za-z0-9_-]*$/ : /^[A-Za-z0-9+/]*$/;
      if (!ok.test(s) || s.length % 4 === 1) return fail('unable to decode value from base64');
      return fromBytes(Buffer.from(s, 'base64'));
    },
  }),
  defineFunction({ name: 'encode_base16', description: 'Encodes bytes as hexadecimal text.', params: [{ name: 'value', kind: K.BYTES, required: true }], returns: K.K_BYTES, call: ([v]) => toBytes(v as string).toString('hex') }),
  defineFunction({
    name: 'decode_base16',
    description: 'Decodes hexadecimal text.',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) => (/^([0-9a-fA-F]{2})*$/.test(v as string) ? fromBytes(Buffer.from(v as string, 'hex')) : fail('unable to decode value from base16')),
  }),
];
