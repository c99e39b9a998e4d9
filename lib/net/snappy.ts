/**
 * Raw (block-format) snappy, as the label store's push API takes it: one compressed block, not the
 * framed stream format. Through `snappyjs` (pure JavaScript, no native build); the package ships
 * no types, so it is loaded with `require` and given the two signatures used here.
 */
import { createRequire } from 'node:module';

interface SnappyJs {
  compress(input: Buffer): Buffer;
  uncompress(input: Buffer, maxLength?: number): Buffer;
}

const snappy = createRequire(import.meta.url)('snappyjs') as SnappyJs;

/** Block-format snappy compression (not the framed stream format). */
export const snappyCompress = (input: Buffer | Uint8Array): Buffer => snappy.compress(Buffer.from(input.buffer, input.byteOffset, input.byteLength));

/** Undoes {@link snappyCompress}; throws on a corrupt block or one that would exceed `maxLength`. */
export const snappyUncompress = (input: Buffer, maxLength?: number): Buffer => snappy.uncompress(input, maxLength);
