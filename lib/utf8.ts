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
 * size, through a reused scratch buffer sized for the worst case (3 bytes per UTF-16 unit): only the
 * exact bytes are allocated per call. With a delimiter the texts are joined into one string first
 * and that is written at once: one call into the runtime per batch instead of one per text, and a
 * flat joined string takes the runtime's fast path, which slices of a larger string (text-window.ts)
 * do not; a fifth cheaper on log lines. The delimiter (ASCII) keeps a text's lone surrogate from
 * pairing with the next text's, so the bytes are those of each text written alone.
 */
export function utf8Join(texts: readonly string[], delimiter: number | undefined): Buffer {
  const n = texts.length;
  let units = 0;
  for (let i = 0; i < n; i++) units += texts[i]!.length;
  const worst = units * 3 + n;
  let buf = scratch;
  if (worst > buf.length) {
    buf = Buffer.allocUnsafeSlow(worst);
    if (worst <= SCRATCH_MAX) scratch = buf;
  }
  let at = 0;
  if (delimiter !== undefined) {
    if (n > 0) {
      at = utf8Write(buf, n === 1 ? texts[0]! : texts.join(String.fromCharCode(delimiter)), 0);
      buf[at++] = delimiter;
    }
  } else {
    for (let i = 0; i < n; i++) at += utf8Write(buf, texts[i]!, at);
  }
  const out = Buffer.allocUnsafe(at);
  buf.copy(out, 0, 0, at);
  return out;
}
