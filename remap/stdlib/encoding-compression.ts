/**
 * Compression: encode_gzip / decode_gzip and encode_zlib / decode_zlib. Decoding stops at a
 * decompression cap (the global `max_decompressed_bytes`), so a small bomb fails the call instead
 * of filling memory. The cap is bound into the decoders when a program is compiled: nothing is
 * read per run.
 */
import { deflateSync, gzipSync } from 'node:zlib';
import { type CompressionAlgorithm, DEFAULT_MAX_DECOMPRESSED_BYTES, DecompressError, decompressSync } from '../../lib/net/compression.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fromBytes, toBytes } from './bytes.js';
import { fail } from './errors.js';

/** Decompressed bytes, or the call's error: corrupt input (zlib's message) or output past the cap. */
function inflate(v: string, algorithm: CompressionAlgorithm, maxBytes: number): string {
  try {
    return fromBytes(decompressSync(toBytes(v), { algorithm, maxBytes }));
  } catch (e) {
    if (!(e instanceof DecompressError)) throw e;
    return fail(`unable to decode value with ${algorithm} decoder: ${e.message.slice(algorithm.length + 2)}`);
  }
}

/** decode_gzip and decode_zlib stopping at `maxBytes` of output. */
export function decoders(maxBytes: number): readonly FnDef[] {
  return [
    defineFunction({
      name: 'decode_gzip',
      description: 'Decompresses gzip data.',
      params: [{ name: 'value', kind: K.BYTES, required: true }],
      fallible: true,
      returns: K.K_BYTES,
      call: ([v]) => inflate(v as string, 'gzip', maxBytes),
    }),
    defineFunction({
      name: 'decode_zlib',
      description: 'Decompresses zlib data.',
      params: [{ name: 'value', kind: K.BYTES, required: true }],
      fallible: true,
      returns: K.K_BYTES,
      call: ([v]) => inflate(v as string, 'zlib', maxBytes),
    }),
  ];
}

/** The functions of this file, for the stdlib list (decoders with the default cap). */
export const compressionFunctions: readonly FnDef[] = [
  ...decoders(DEFAULT_MAX_DECOMPRESSED_BYTES),
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
    name: 'encode_zlib',
    description: 'Compresses data with zlib.',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'compression_level', kind: K.INTEGER },
    ],
    returns: K.K_BYTES,
    call: ([v, l]) => fromBytes(deflateSync(toBytes(v as string), { level: typeof l === 'number' ? Math.min(9, Math.max(0, l)) : 6 })),
  }),
];
