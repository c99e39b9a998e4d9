/**
 * Compression: encode_gzip / decode_gzip and encode_zlib / decode_zlib. Decoding stops at
 * {@link MAX_DECODED_BYTES} of output (lower when the global `max_decompressed_bytes` is lower), so
 * a small bomb fails the call instead of filling memory: zlib's `maxOutputLength` ends inflation
 * one chunk past the cap. The cap is bound into the decoders when a program is compiled: nothing is
 * read per run.
 */
import { deflateSync, gzipSync } from 'node:zlib';
import { type CompressionAlgorithm, DecompressError, DecompressLimitError, decompressSync } from '../../lib/net/compression.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fromBytes, toBytes } from './bytes.js';
import { fail } from './errors.js';

/**
 * Most bytes one decode_gzip or decode_zlib call produces: 16 MiB. One event's field is never
 * meant to hold more, and the output is held twice (the bytes, then the string) while the program
 * runs; the global `max_decompressed_bytes` can lower this cap, not raise it.
 */
export const MAX_DECODED_BYTES = 16 * 1024 * 1024;

/** Decompressed bytes, or the call's error: corrupt input (zlib's message) or output past the cap. */
function inflate(v: string, algorithm: CompressionAlgorithm, maxBytes: number): string {
  try {
    return fromBytes(decompressSync(toBytes(v), { algorithm, maxBytes }));
  } catch (e) {
    if (e instanceof DecompressLimitError) return fail(`unable to decode value with ${algorithm} decoder: decoded data exceeds the limit of ${maxBytes} bytes`);
    if (!(e instanceof DecompressError)) throw e;
    return fail(`unable to decode value with ${algorithm} decoder: ${e.message.slice(algorithm.length + 2)}`);
  }
}

/** The limit as the function reference states it (docs/remap-functions.md is generated from the descriptions). */
const limitNote = `fails with "decoded data exceeds the limit of N bytes" once the output passes ${MAX_DECODED_BYTES} bytes (16 MiB), or the global \`max_decompressed_bytes\` when that is lower`;

/** decode_gzip and decode_zlib stopping at `maxBytes` of output, never more than {@link MAX_DECODED_BYTES}. */
export function decoders(maxBytes: number): readonly FnDef[] {
  const cap = Math.min(maxBytes, MAX_DECODED_BYTES);
  return [
    defineFunction({
      name: 'decode_gzip',
      description: `Decompresses gzip data; ${limitNote}.`,
      params: [{ name: 'value', kind: K.BYTES, required: true }],
      fallible: true,
      returns: K.K_BYTES,
      call: ([v]) => inflate(v as string, 'gzip', cap),
    }),
    defineFunction({
      name: 'decode_zlib',
      description: `Decompresses zlib data; ${limitNote}.`,
      params: [{ name: 'value', kind: K.BYTES, required: true }],
      fallible: true,
      returns: K.K_BYTES,
      call: ([v]) => inflate(v as string, 'zlib', cap),
    }),
  ];
}

/** The functions of this file, for the stdlib list (decoders with the default cap). */
export const compressionFunctions: readonly FnDef[] = [
  ...decoders(MAX_DECODED_BYTES),
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
