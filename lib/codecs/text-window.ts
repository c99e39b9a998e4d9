/**
 * Decodes a chunk's frames as slices of one decoded window of the chunk, not one string per frame:
 * most of a short frame's decode is the call into the runtime, not its bytes (200-byte lines:
 * 130–190 ns each decoded alone, about 95 ns as slices of 2 KiB windows, measured on Node 20).
 *
 * A window's text is used only where every byte of it became exactly one UTF-16 unit (ASCII, or a
 * lone invalid byte replaced by U+FFFD): then byte offsets are text offsets, and decoding any part
 * of it alone gives that part's slice (a valid multi-byte sequence or a longer invalid one makes the
 * text shorter than the bytes, and the window is not used). A frame of such a window is a slice of
 * its text (V8 keeps a reference, no copy): it holds on to at most {@link WINDOW_BYTES} of text as
 * long as it lives, which bounds what a long-lived frame (a deduplication cache's, a reduce state's)
 * can keep alive.
 */
import { utf8Slice } from '../utf8.js';

/** Bytes decoded at once; frames longer than half of it are decoded alone. */
export const WINDOW_BYTES = 2048;

/**
 * One connection's window. {@link reset} at every chunk: a window is keyed by its buffer, and a
 * caller may refill the same buffer.
 */
export class TextWindow {
  private buf: Buffer | undefined;
  private start = 0;
  private end = 0;
  /** The window's text; undefined: not one unit per byte, so its frames are decoded alone. */
  private text: string | undefined;

  /** Forgets the window (a new chunk). */
  reset(): void {
    this.buf = undefined;
    this.text = undefined;
  }

  /** The UTF-8 text of `buf[start, end)`. */
  decode(buf: Buffer, start: number, end: number): string {
    if (buf === this.buf && start >= this.start && end <= this.end) {
      const text = this.text;
      return text === undefined ? utf8Slice(buf, start, end) : text.slice(start - this.start, end - this.start);
    }
    if (end - start > WINDOW_BYTES >> 1) return utf8Slice(buf, start, end);
    const stop = Math.min(buf.length, start + WINDOW_BYTES);
    const text = utf8Slice(buf, start, stop);
    this.buf = buf;
    this.start = start;
    if (text.length === stop - start) {
      this.end = stop;
      this.text = text;
      return text.slice(0, end - start);
    }
    // text that is not all ASCII: the rest of this chunk is decoded frame by frame, so such
    // traffic pays one extra window per chunk, not one per frame
    this.end = buf.length;
    this.text = undefined;
    return utf8Slice(buf, start, end);
  }
}
