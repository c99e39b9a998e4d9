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

/** Largest scratch buffer kept between calls; a larger need is met by a buffer of its own, not kept. */
const SCRATCH_MAX = 4 * 1024 * 1024;

/** A buffer reused from call to call, grown as needed (kept up to 4 MiB). */
export class ScratchBuffer {
  private buf = Buffer.allocUnsafeSlow(64 * 1024);
  /** A buffer of at least `size` bytes; what an earlier take returned may be overwritten. */
  take(size: number): Buffer {
    if (size <= this.buf.length) return this.buf;
    const buf = Buffer.allocUnsafeSlow(size);
    if (size <= SCRATCH_MAX) this.buf = buf;
    return buf;
  }
}

const shared = new ScratchBuffer();

/**
 * `texts` as UTF-8, each followed by `delimiter` (one byte, or none), in a new buffer of the exact
 * size: written into a reused scratch buffer sized for the worst case (3 bytes per UTF-16 unit),
 * then copied, so only the exact bytes are allocated per call.
 */
export function utf8Join(texts: readonly string[], delimiter: number | undefined): Buffer {
  const view = utf8JoinInto(shared, texts, delimiter);
  const out = Buffer.allocUnsafe(view.length);
  view.copy(out, 0, 0, view.length);
  return out;
}

/**
 * As {@link utf8Join}, but the bytes are a view of `scratch`, valid until its next use: for a
 * writer that is done with them before it joins again. With a delimiter the texts are joined into
 * one string first and that is written at once: one call into the runtime per batch instead of one
 * per text, and a flat joined string takes the runtime's fast path, which slices of a larger string
 * (codecs/text-window.ts) do not; a fifth cheaper on log lines. The delimiter (ASCII) keeps a text's
 * lone surrogate from pairing with the next text's, so the bytes are those of each text written alone.
 */
export function utf8JoinInto(scratch: ScratchBuffer, texts: readonly string[], delimiter: number | undefined): Buffer {
  const n = texts.length;
  let units = 0;
  for (let i = 0; i < n; i++) units += texts[i]!.length;
  const buf = scratch.take(units * 3 + n);
  let at = 0;
  if (delimiter !== undefined) {
    if (n > 0) {
      at = utf8Write(buf, n === 1 ? texts[0]! : texts.join(String.fromCharCode(delimiter)), 0);
      buf[at++] = delimiter;
    }
  } else {
    for (let i = 0; i < n; i++) at += utf8Write(buf, texts[i]!, at);
  }
  return buf.subarray(0, at);
}
