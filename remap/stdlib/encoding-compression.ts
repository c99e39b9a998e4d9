/**
 * Compression: encode_gzip / decode_gzip and encode_zlib / decode_zlib. Decoding stops at the
 * program's decompression cap (the global `max_decompressed_bytes`), so a small bomb fails the call
 * instead of filling memory.
 */
import { deflateSync, gzipSync } from 'node:zlib';
import { type CompressionAlgorithm, DecompressError, decompressSync } from '../../lib/net/compression.js';
import type { Ctx } from '../runtime.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fromBytes, toBytes } from './bytes.js';
import { fail } from './errors.js';

/** Decompressed bytes, or the call's error: corrupt input (zlib's message) or output past the cap. */
function inflate(v: string, algorithm: CompressionAlgorithm, ctx: Ctx): string {
  try {
    return fromBytes(decompressSync(toBytes(v), { algorithm, maxBytes: ctx.maxDecompressedBytes }));
  } catch (e) {
    if (!(e instanceof DecompressError)) throw e;
    return fail(`unable to decode value with ${algorithm} decoder: ${e.message.slice(algorithm.length + 2)}`);
  }
}

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
    call: ([v], env) => inflate(v as string, 'gzip', env.ctx),
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
    call: ([v], env) => inflate(v as string, 'zlib', env.ctx),
  }),
];
