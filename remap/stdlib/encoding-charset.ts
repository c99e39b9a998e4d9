/** decode_charset / encode_charset: legacy encodings through the WHATWG decoders. */
import { TextDecoder } from 'node:util';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fromBytes, toBytes } from './bytes.js';
import { fail } from './errors.js';

function decoder(label: string): TextDecoder {
  try {
    return new TextDecoder(label, { fatal: true });
  } catch {
    return fail(`Unknown charset: ${label}`);
  }
}

const reverseTables = new Map<string, Map<string, number[]>>();

/** Character → bytes for a legacy encoding, built once by decoding every 1- and 2-byte sequence. */
function reverseTable(label: string): Map<string, number[]> {
  const dec = decoder(label);
  const key = dec.encoding;
  let t = reverseTables.get(key);
  if (t) return t;
  t = new Map();
  const tryBytes = (bytes: number[]): void => {
    try {
      const ch = dec.decode(new Uint8Array(bytes));
      if (ch.length > 0 && [...ch].length === 1 && !t!.has(ch)) t!.set(ch, bytes);
    } catch {
      /* not a complete character */
    }
  };
  for (let a = 0; a < 256; a++) tryBytes([a]);
  for (let a = 0x80; a < 256; a++) for (let b = 0x40; b < 256; b++) tryBytes([a, b]);
  reverseTables.set(key, t);
  return t;
}

function encodeCharset(text: string, label: string): Buffer {
  const dec = decoder(label);
  if (dec.encoding === 'utf-8') return toBytes(text);
  if (dec.encoding === 'utf-16le' || dec.encoding === 'utf-16be') {
    const b = Buffer.from(text, 'utf16le');
    if (dec.encoding === 'utf-16be') b.swap16();
    return b;
  }
  const t = reverseTable(label);
  const out: number[] = [];
  for (const ch of text) {
    const bytes = t.get(ch);
    if (!bytes) return fail(`Unable to encode character ${JSON.stringify(ch)} with charset ${label}`);
    out.push(...bytes);
  }
  return Buffer.from(out);
}

/** The functions of this file, for the stdlib list. */
export const charsetFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'decode_charset',
    description: 'Decodes bytes in a named character set to UTF-8.',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'from_charset', kind: K.BYTES, required: true },
    ],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v, c]) => {
      try {
        return decoder(c as string).decode(toBytes(v as string));
      } catch (e) {
        if ((e as Error).message.startsWith('Unknown charset')) throw e;
        return fail(`Unable to decode value with charset ${c as string}`);
      }
    },
  }),
  defineFunction({
    name: 'encode_charset',
    description: 'Encodes UTF-8 text into a named character set.',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'to_charset', kind: K.BYTES, required: true },
    ],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v, c]) => fromBytes(encodeCharset(v as string, c as string)),
  }),
];
