/** decode_mime_q: MIME encoded words (RFC 2047) to text. */
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fail } from './errors.js';

/** The functions of this file, for the stdlib list. */
export const mimeFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'decode_mime_q',
    description: 'Decodes MIME Q/B encoded words (RFC 2047).',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) =>
      (v as string).replace(/=\?([^?]+)\?([bBqQ])\?([^?]*)\?=/g, (_m, charset: string, enc: string, text: string) => {
        let bytes: Buffer;
        if (enc.toLowerCase() === 'b') bytes = Buffer.from(text, 'base64');
        else {
          const raw = text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_x, h: string) => String.fromCharCode(parseInt(h, 16)));
          bytes = Buffer.from(raw, 'latin1');
        }
        try {
          return new TextDecoder(charset.toLowerCase()).decode(bytes);
        } catch {
          return fail(`unknown charset: ${charset}`);
        }
      }),
  }),
];
