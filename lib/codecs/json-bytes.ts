/**
 * JSON text written as UTF-8 straight into a growable buffer: the same bytes as
 * `valueToJSONText(v)` (RFC 3339 timestamps) encoded, without building the text as a string first.
 * A string built by concatenation is a tree of pieces that is copied again when it is written out,
 * and every piece is garbage; here each value is written once where it ends up.
 */
import { Float, Timestamp, type Value } from '../value.js';
import { utf8Write } from '../utf8.js';

const align4 = (n: number): number => (n + 3) & ~3;
const wordsOf = (b: Buffer): Uint32Array => new Uint32Array(b.buffer, b.byteOffset, b.length >>> 2);

/** A growable UTF-8 byte sink, reused across records. */
export class Utf8Writer {
  buf: Buffer;
  /** The same memory as 32-bit words (the buffer starts its own ArrayBuffer, so it is aligned). */
  words: Uint32Array;
  pos = 0;
  /**
   * Where the record being written starts. With a mark above 0, what is before it is finished:
   * when the buffer is full, only the record moves on into another buffer (and the mark to 0),
   * and the finished bytes stay where they are for whoever holds them.
   */
  mark = 0;
  /** Supplies the buffer a record moves into (at least `size` bytes); default: a new one. */
  nextBuffer: ((size: number) => Buffer) | undefined = undefined;
  constructor(initial = 64 * 1024) {
    this.buf = Buffer.allocUnsafeSlow(align4(initial));
    this.words = wordsOf(this.buf);
  }
  /** Room for `n` more bytes: a larger buffer holding everything, or one the record moves into. */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const keep = this.pos - this.mark;
    const size = this.mark > 0 ? Math.max(this.buf.length, keep + n) : Math.max(this.buf.length * 2, this.pos + n);
    const next = this.nextBuffer?.(size) ?? Buffer.allocUnsafeSlow(align4(size));
    this.buf.copy(next, 0, this.mark, this.pos);
    this.buf = next;
    this.words = wordsOf(next);
    this.pos = keep;
    this.mark = 0;
  }
  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }
  /** Text known to be ASCII (numbers, timestamps, literals). */
  ascii(s: string): void {
    const n = s.length;
    this.ensure(n);
    const b = this.buf;
    const at = this.pos;
    for (let i = 0; i < n; i++) b[at + i] = s.charCodeAt(i);
    this.pos = at + n;
  }
  /** Any text, as UTF-8 (lone surrogates as U+FFFD, as Buffer writes them). */
  utf8(s: string): void {
    this.ensure(s.length * 3);
    this.pos += utf8Write(this.buf, s, this.pos);
  }
  /**
   * The bytes written so far, where they were written (the buffer is handed over: nothing is
   * written into it again); writing goes on at the start of `next` (a buffer of its own ArrayBuffer).
   */
  detach(next: Buffer): Buffer {
    const out = this.buf.subarray(0, this.pos);
    this.buf = next;
    this.words = wordsOf(next);
    this.pos = 0;
    this.mark = 0;
    return out;
  }
}

/** `String.prototype.isWellFormed` (V8 11.3, Node 20): false when the string holds a lone surrogate. */
const isWellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/**
 * Whether UTF-8 bytes `b[start, end)` hold a byte JSON must escape: a control character, a quote or
 * a backslash (bytes of multi-byte characters are all 0x80 or above, so the test is exact). Four
 * bytes at a time through `words`, a 32-bit view of the same memory: a regex or `JSON.stringify`
 * scans a 200-character line four times slower.
 */
function needsEscape(b: Buffer, words: Uint32Array, start: number, end: number): boolean {
  return scanBytes(b, words, start, end, 0x100, 0);
}

/**
 * Whether bytes `b[start, end)` are ASCII that a JSON string holds as they are (no control
 * character, quote or backslash): such bytes are their own UTF-8 decoding, their own JSON string
 * body and as many UTF-16 units as bytes. `words`, when given, is a 32-bit view of `b`'s memory
 * from `b`'s start (which must be 4-byte aligned).
 */
export function isVerbatimAscii(b: Buffer, words: Uint32Array | undefined, start: number, end: number): boolean {
  return !scanBytes(b, words, start, end, 0x80, 0x80808080);
}

/** Whether a byte of `b[start, end)` is below 0x20, a quote, a backslash, or at least `limit` (`high`: the same limit per byte of a word, 0x80 or none). */
function scanBytes(b: Buffer, words: Uint32Array | undefined, start: number, end: number, limit: number, high: number): boolean {
  let i = start;
  if (words !== undefined) {
    for (; i < end && (i & 3) !== 0; i++) {
      const c = b[i]!;
      if (c < 0x20 || c === 0x22 || c === 0x5c || c >= limit) return true;
    }
    const last = end >>> 2;
    for (let k = i >>> 2; k < last; k++) {
      const x = words[k]!;
      // per byte: below 0x20 (x - 0x20 borrows into the top bit), or equal to 0x22 or 0x5c (a zero byte after xor)
      const q = x ^ 0x22222222;
      const bs = x ^ 0x5c5c5c5c;
      if ((x & high) | ((x - 0x20202020) & ~x & 0x80808080) | ((q - 0x01010101) & ~q & 0x80808080) | ((bs - 0x01010101) & ~bs & 0x80808080)) return true;
    }
    i = Math.max(i, last << 2);
  }
  for (; i < end; i++) {
    const c = b[i]!;
    if (c < 0x20 || c === 0x22 || c === 0x5c || c >= limit) return true;
  }
  return false;
}

/** A string as a JSON string token. */
function writeString(w: Utf8Writer, s: string): void {
  const n = s.length;
  w.ensure(n * 3 + 2);
  const b = w.buf;
  const at = w.pos;
  b[at] = 0x22;
  if (n < 16) {
    // short strings (hosts, names): a loop beats a native call while they are printable ASCII
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) break;
      b[at + 1 + i] = c;
    }
    if (i === n) {
      b[at + 1 + n] = 0x22;
      w.pos = at + n + 2;
      return;
    }
  }
  // lone surrogates and characters to escape: as JSON.stringify writes them (it escapes the former too)
  if (!isWellFormed(s)) return w.utf8(JSON.stringify(s));
  const len = utf8Write(b, s, at + 1);
  if (needsEscape(b, w.words, at + 1, at + 1 + len)) return w.utf8(JSON.stringify(s));
  b[at + 1 + len] = 0x22;
  w.pos = at + len + 2;
}

/** `"name":` by name, escaped once; bounded as the text form's cache is (names can come from the data). */
const keyTokens = new Map<string, Buffer>();
const KEY_TOKENS_MAX = 4096;
function writeKey(w: Utf8Writer, k: string): void {
  let t = keyTokens.get(k);
  if (t === undefined) {
    t = Buffer.from(JSON.stringify(k) + ':', 'utf8');
    if (keyTokens.size < KEY_TOKENS_MAX) keyTokens.set(k, t);
  }
  const n = t.length;
  w.ensure(n);
  const b = w.buf;
  const at = w.pos;
  for (let i = 0; i < n; i++) b[at + i] = t[i]!;
  w.pos = at + n;
}

/** Writes `v` as `valueToJSONText(v)` (default timestamp format) would give it, as UTF-8. */
export function writeJSONDefault(w: Utf8Writer, v: Value): void {
  if (v === null) return w.ascii('null');
  switch (typeof v) {
    case 'string':
      return writeString(w, v);
    case 'number':
      return w.ascii(Number.isFinite(v) ? String(v) : 'null');
    case 'boolean':
      return w.ascii(v ? 'true' : 'false');
    case 'object':
      break;
    default:
      // undefined inside an array, as JSON.stringify writes it
      return w.ascii('null');
  }
  if (v instanceof Timestamp) {
    w.byte(0x22);
    w.ascii(v.toString());
    return w.byte(0x22);
  }
  if (v instanceof Float) return w.ascii(Number.isFinite(v.value) ? String(v.value) : 'null');
  if (v instanceof RegExp) return w.utf8(JSON.stringify(v.source));
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return w.utf8(JSON.stringify(v));
  if (Array.isArray(v)) {
    w.byte(0x5b);
    for (let i = 0; i < v.length; i++) {
      if (i > 0) w.byte(0x2c);
      writeJSONDefault(w, v[i] as Value);
    }
    return w.byte(0x5d);
  }
  w.byte(0x7b);
  let first = true;
  for (const k in v) {
    const x = v[k];
    if (x === undefined) continue;
    if (!first) w.byte(0x2c);
    first = false;
    writeKey(w, k);
    writeJSONDefault(w, x);
  }
  w.byte(0x7d);
}
