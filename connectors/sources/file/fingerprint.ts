/**
 * File identity (`fingerprint`), as Vector's `file` source documentation page describes it:
 * `checksum` hashes the first `lines` lines after `ignored_header_bytes`, so a file keeps its
 * identity when renamed or copied and a new file at an old path is a new file; `device_and_inode`
 * uses the file system's identity, so a rewritten file is the same file.
 */
import { createHash } from 'node:crypto';
import { type Stats, readSync } from 'node:fs';

/** How fingerprints are taken (the `fingerprint` options, delimiter included). */
export interface FingerprintOptions {
  readonly strategy: 'checksum' | 'device_and_inode';
  readonly lines: number;
  readonly ignoredHeaderBytes: number;
  readonly delimiter: Buffer;
  /** Longest span the checksum reads: more is never needed to find `lines` lines within `max_line_bytes`. */
  readonly maxBytes: number;
}

/** The checksum needs lines the file does not have yet: it is read once it grows. */
export const TOO_SHORT = Symbol('too short');

/** Compressed bytes a gzip file's checksum covers: its header and the start of its deflate data. */
const GZIP_CHECKSUM_BYTES = 256;

/**
 * Reads the fingerprint of an open file: a string key, or {@link TOO_SHORT}. A gzip file (`gzip`)
 * has no lines to hash before decompression: its checksum covers its first compressed bytes.
 * Throws on a read error.
 */
export function fingerprint(fd: number, stats: Stats, o: FingerprintOptions, gzip = false): string | typeof TOO_SHORT {
  if (o.strategy === 'device_and_inode') return `dev:${stats.dev}:${stats.ino}`;
  if (gzip) {
    const head = Buffer.allocUnsafe(Math.min(stats.size, GZIP_CHECKSUM_BYTES));
    const n = readSync(fd, head, 0, head.length, 0);
    return `gz:${createHash('sha256').update(head.subarray(0, n)).digest('hex').slice(0, 32)}`;
  }
  const buf = Buffer.allocUnsafe(Math.min(o.maxBytes, 1 << 20));
  let held = 0;
  let lines = 0;
  let end = -1;
  let pos = o.ignoredHeaderBytes;
  // reads in pieces until `lines` delimiters were seen, within maxBytes
  for (let scanned = 0; scanned < o.maxBytes; ) {
    if (held === buf.length) return TOO_SHORT;
    const n = readSync(fd, buf, held, Math.min(buf.length - held, o.maxBytes - scanned), pos);
    if (n === 0) return TOO_SHORT;
    let from = Math.max(0, held - o.delimiter.length + 1);
    held += n;
    pos += n;
    scanned += n;
    for (;;) {
      const i = buf.subarray(0, held).indexOf(o.delimiter, from);
      if (i < 0) break;
      from = i + o.delimiter.length;
      if (++lines === o.lines) {
        end = from;
        break;
      }
    }
    if (end >= 0) break;
  }
  if (end < 0) return TOO_SHORT;
  return `sum:${createHash('sha256').update(buf.subarray(0, end)).digest('hex').slice(0, 32)}`;
}
