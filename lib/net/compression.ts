/**
 * Request-body compression for every sink (spec 01 §2.1 `compression`, reference sinks §0.11).
 * Runs on the libuv thread pool (zlib's async API), so large bodies do not block the event loop.
 */
import { promisify } from 'node:util';
import { deflate, gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);
const deflateAsync = promisify(deflate);

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

/** zlib levels 0-9; reference sinks §0.11: gzip defaults to 6. */
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
