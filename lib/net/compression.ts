/**
 * Request-body compression for every sink (the `compression` option: gzip or none),
 * and bounded decompression for everything that inflates untrusted data (request bodies,
 * compressed message blobs, remap's decode_* functions): output stops at a byte cap, so a small
 * compressed bomb never becomes a large allocation (docs/limits.md).
 * Runs on the libuv thread pool (zlib's async API), so large bodies do not block the event loop.
 */
import { constants as bufferConstants } from 'node:buffer';
import { promisify } from 'node:util';
import { type ZlibOptions, deflate, gunzip, gunzipSync, gzip, inflate, inflateSync } from 'node:zlib';

const gzipAsync = promisify(gzip);
const deflateAsync = promisify(deflate);
const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);

/** Every algorithm a sink may name; each sink's schema lists the subset it offers. */
export type CompressionAlgorithm = 'none' | 'gzip' | 'zlib' | 'zstd' | 'snappy';

/** Compresses whole request bodies. */
export interface Compressor {
  readonly algorithm: CompressionAlgorithm;
  /** `Content-Encoding` value; undefined when the body is sent as is. */
  readonly contentEncoding: string | undefined;
  /** Object-name extension suffix (`gz`), empty for none. */
  readonly extension: string;
  compress(body: Buffer): Promise<Buffer>;
}

/** zlib levels 0-9; gzip defaults to 6, as in Vector. */
export const DEFAULT_LEVEL = 6;

const none: Compressor = { algorithm: 'none', contentEncoding: undefined, extension: '', compress: async (b) => b };

/**
 * The compressor for an algorithm. Throws at build time for algorithms this runtime lacks
 * (Node 20 has no zstd or snappy), so a config naming one fails before any data flows.
 */
export function createCompressor(algorithm: CompressionAlgorithm, level: number = DEFAULT_LEVEL): Compressor {
  if (!Number.isInteger(level) || level < 0 || level > 9) throw new Error(`compression level must be an integer from 0 to 9, got ${level}`);
  switch (algorithm) {
    case 'none':
      return none;
    case 'gzip':
      return { algorithm, contentEncoding: 'gzip', extension: 'gz', compress: (b) => gzipAsync(b, { level }) };
    case 'zlib':
      return { algorithm, contentEncoding: 'deflate', extension: 'zz', compress: (b) => deflateAsync(b, { level }) };
    case 'zstd':
    case 'snappy':
      throw new Error(`compression "${algorithm}" is not available in this build`);
  }
}

/**
 * Default cap on one decompressed payload: 100 MiB, the figure Vector uses for its sources.
 * The global option `max_decompressed_bytes` overrides it for components that read the globals.
 */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 100 * 1024 * 1024;

/** Data that cannot be decompressed: corrupt or truncated input, or an algorithm this build lacks. */
export class DecompressError extends Error {
  override name = 'DecompressError';
  constructor(
    readonly algorithm: CompressionAlgorithm,
    message: string,
  ) {
    super(`${algorithm}: ${message}`);
  }
}

/** The decompressed data would exceed the cap (HTTP sources answer 413); nothing past the cap was produced. */
export class DecompressLimitError extends DecompressError {
  override name = 'DecompressLimitError';
  constructor(
    algorithm: CompressionAlgorithm,
    readonly maxBytes: number,
  ) {
    super(algorithm, `decompressed size exceeds the limit of ${maxBytes} bytes`);
  }
}

/** What to decompress and how much output to allow. */
export interface DecompressOptions {
  /** `none` passes the data through (still capped); `zlib` is the zlib format (HTTP `deflate`). */
  readonly algorithm: CompressionAlgorithm;
  /** Most output bytes; default {@link DEFAULT_MAX_DECOMPRESSED_BYTES}. */
  readonly maxBytes?: number | undefined;
}

/** zlib stops inflating once its output passes this, so at most one 16 KiB chunk more is ever held. */
function zlibLimit(maxBytes: number): ZlibOptions {
  if (!Number.isInteger(maxBytes) || maxBytes < 1) throw new RangeError(`maxBytes must be a positive integer, got ${maxBytes}`);
  return { maxOutputLength: Math.min(maxBytes, bufferConstants.MAX_LENGTH) };
}

/** Maps zlib's errors to ours: over the cap, or corrupt input (zlib's own message kept). */
function asDecompressError(err: unknown, algorithm: CompressionAlgorithm, maxBytes: number): DecompressError {
  if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return new DecompressLimitError(algorithm, maxBytes);
  return new DecompressError(algorithm, (err as Error).message);
}

function unavailable(algorithm: CompressionAlgorithm): DecompressError {
  return new DecompressError(algorithm, 'decompression is not available in this build');
}

/**
 * Decompresses `buf` on the thread pool, stopping at `maxBytes` of output: rejects with
 * {@link DecompressLimitError} past the cap (after inflating at most one chunk beyond it), with
 * {@link DecompressError} for corrupt input or zstd/snappy (not in this build). Concatenated gzip
 * members decompress to their concatenation.
 */
export async function decompress(buf: Buffer, opts: DecompressOptions): Promise<Buffer> {
  const { algorithm } = opts;
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES;
  const limit = zlibLimit(maxBytes);
  try {
    switch (algorithm) {
      case 'none':
        if (buf.length > maxBytes) throw new DecompressLimitError(algorithm, maxBytes);
        return buf;
      case 'gzip':
        return await gunzipAsync(buf, limit);
      case 'zlib':
        return await inflateAsync(buf, limit);
      case 'zstd':
      case 'snappy':
        throw unavailable(algorithm);
    }
  } catch (err) {
    throw err instanceof DecompressError ? err : asDecompressError(err, algorithm, maxBytes);
  }
}

/**
 * {@link decompress} on the calling thread, for synchronous callers (remap's decode_gzip and
 * decode_zlib): the same cap and errors, thrown.
 */
export function decompressSync(buf: Buffer, opts: DecompressOptions): Buffer {
  const { algorithm } = opts;
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES;
  const limit = zlibLimit(maxBytes);
  try {
    switch (algorithm) {
      case 'none':
        if (buf.length > maxBytes) throw new DecompressLimitError(algorithm, maxBytes);
        return buf;
      case 'gzip':
        return gunzipSync(buf, limit);
      case 'zlib':
        return inflateSync(buf, limit);
      case 'zstd':
      case 'snappy':
        throw unavailable(algorithm);
    }
  } catch (err) {
    throw err instanceof DecompressError ? err : asDecompressError(err, algorithm, maxBytes);
  }
}
