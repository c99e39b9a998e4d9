/**
 * Buffer's own UTF-8 methods, called without `write()`/`toString()` argument juggling: on hot paths
 * (one call per event) that wrapper costs as much as a short string's copy.
 */
interface FastUtf8 {
  utf8Write?(s: string, offset: number): number;
  utf8Slice?(start: number, end: number): string;
}

const PROTO = Buffer.prototype as FastUtf8;
const FAST = typeof PROTO.utf8Write === 'function' && typeof PROTO.utf8Slice === 'function';

/** Writes `s` as UTF-8 at `at`; the caller ensured room (at most 3 bytes per UTF-16 unit). Returns the bytes written. */
export const utf8Write: (buf: Buffer, s: string, at: number) => number = FAST
  ? (buf, s, at) => (buf as FastUtf8).utf8Write!(s, at)
  : (buf, s, at) => buf.write(s, at, 'utf8');

/** The UTF-8 text of `buf[start, end)`. */
export const utf8Slice: (buf: Buffer, start: number, end: number) => string = FAST
  ? (buf, start, end) => (buf as FastUtf8).utf8Slice!(start, end)
  : (buf, start, end) => buf.toString('utf8', start, end);

/** Largest scratch buffer kept between calls; a longer join writes into one of its own. */
const SCRATCH_MAX = 4 * 1024 * 1024;
let scratch = Buffer.allocUnsafeSlow(64 * 1024);

/**
 * `texts` as UTF-8, each followed by `delimiter` (one byte, or none), in a new buffer of the exact
 * size. Written text by text into a reused scratch buffer sized for the worst case (3 bytes per
 * UTF-16 unit), then copied once: no joined string is built and flattened first (that costs three
 * times as much on log lines), and only the exact bytes are allocated per call.
 */
export function utf8Join(texts: readonly string[], delimiter: number | undefined): Buffer {
  const n = texts.length;
  const dlen = delimiter === undefined ? 0 : 1;
  let units = 0;
  for (let i = 0; i < n; i++) units += texts[i]!.length;
  const worst = units * 3 + n * dlen;
  let buf = scratch;
  if (worst > buf.length) {
    buf = Buffer.allocUnsafeSlow(worst);
    if (worst <= SCRATCH_MAX) scratch = buf;
  }
  let at = 0;
  for (let i = 0; i < n; i++) {
    at += utf8Write(buf, texts[i]!, at);
    if (dlen) buf[at++] = delimiter!;
  }
  const out = Buffer.allocUnsafe(at);
  buf.copy(out, 0, 0, at);
  return out;
}
