/** Compression: encode_gzip / decode_gzip and encode_zlib / decode_zlib. */
import { deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fromBytes, toBytes } from './bytes.js';
import { fail } from './errors.js';

/** The functions of this file, for the stdlib list. */
export const compressionFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'encode_gzip',
    description: 'Compresses data with gzip.',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'compression_level', kind: K.INTEGER },
    ],
    returns: K.K_BYTES,
    call: ([v, l]) => {
      const out = gzipSync(toBytes(v as string), { level: typeof l === 'number' ? Math.min(9, Math.max(0, l)) : 6 });
      out[9] = 0xff; // OS field "unknown", as the reference encoder writes it
      return fromBytes(out);
    },
  }),
  defineFunction({
    name: 'decode_gzip',
    description: 'Decompresses gzip data.',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) => {
      try {
        return fromBytes(gunzipSync(toBytes(v as string)));
      } catch (e) {
        return fail(`unable to decode value with gzip decoder: ${(e as Error).message}`);
      }
    },
  }),
  defineFunction({
    name: 'encode_zlib',
    description: 'Compresses data with zlib.',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'compression_level', kind: K.INTEGER },
    ],
    returns: K.K_BYTES,
    call: ([v, l]) => fromBytes(deflateSync(toBytes(v as string), { level: typeof l === 'number' ? Math.min(9, Math.max(0, l)) : 6 })),
  }),
  defineFunction({
    name: 'decode_zlib',
    description: 'Decompresses zlib data.',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) => {
      try {
        return fromBytes(inflateSync(toBytes(v as string)));
      } catch (e) {
        return fail(`unable to decode value with zlib decoder: ${(e as Error).message}`);
      }
    },
  }),
];
