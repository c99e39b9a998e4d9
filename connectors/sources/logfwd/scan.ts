/**
 * Finds where msgpack values end without decoding them: a walk over type headers that keeps only
 * a position and a count of values still to read, so a frame arriving over many reads is scanned
 * once, each byte at most once, and nothing is decoded before the whole frame is there.
 */

/** Where a scan stands: `pending` values still to read from `pos`; 0 = between frames. */
export interface ScanState {
  pos: number;
  pending: number;
  /** When incomplete: the smallest buffer length that could let the scan go on. */
  needed: number;
}

/** Bytes of header plus payload for fixed-size types, by type byte 0xc0..0xdf; 0 = variable. */
const FIXED: readonly number[] = (() => {
  const t = new Array<number>(0x20).fill(0);
  const set = (b: number, n: number) => (t[b - 0xc0] = n);
  set(0xc0, 1); set(0xc1, 1); set(0xc2, 1); set(0xc3, 1);
  set(0xca, 5); set(0xcb, 9); set(0xcc, 2); set(0xcd, 3); set(0xce, 5); set(0xcf, 9);
  set(0xd0, 2); set(0xd1, 3); set(0xd2, 5); set(0xd3, 9);
  set(0xd4, 3); set(0xd5, 4); set(0xd6, 6); set(0xd7, 10); set(0xd8, 18);
  return t;
})();

/**
 * Advances `s` over `buf[0..end)` until the frame being read is complete (returns true, `pos` at
 * its end, `pending` 0) or the bytes run out (returns false: `pos` stays at the start of the value
 * that is cut off, `needed` is the buffer length that value needs at least). The caller sets
 * `pending` to 1 to start a frame. Malformed bytes are left for the decoder to reject.
 */
export function scanValue(buf: Buffer, end: number, s: ScanState): boolean {
  let pos = s.pos;
  let pending = s.pending;
  while (pending > 0) {
    if (pos >= end) return stop(s, pos, pending, pos + 1);
    const at = pos;
    const t = buf[pos]!;
    if (t <= 0x7f || t >= 0xe0) {
      pos += 1;
    } else if (t <= 0x8f) {
      pending += 2 * (t & 0x0f);
      pos += 1;
    } else if (t <= 0x9f) {
      pending += t & 0x0f;
      pos += 1;
    } else if (t <= 0xbf) {
      pos += 1 + (t & 0x1f);
    } else {
      const fixed = FIXED[t - 0xc0]!;
      if (fixed > 0) pos += fixed;
      else {
        // variable: type byte, 1, 2 or 4 length bytes, and for ext one type code
        const n = t === 0xc4 || t === 0xc7 || t === 0xd9 ? 1 : t === 0xc5 || t === 0xc8 || t === 0xda || t === 0xdc || t === 0xde ? 2 : 4;
        const header = 1 + n + (t >= 0xc7 && t <= 0xc9 ? 1 : 0);
        if (pos + header > end) return stop(s, at, pending, pos + header);
        const len = n === 1 ? buf[pos + 1]! : n === 2 ? buf.readUInt16BE(pos + 1) : buf.readUInt32BE(pos + 1);
        if (t === 0xdc || t === 0xdd) {
          pending += len;
          pos += header;
        } else if (t === 0xde || t === 0xdf) {
          pending += 2 * len;
          pos += header;
        } else pos += header + len;
      }
    }
    // a payload past the end: the value is cut off, resume at its header
    if (pos > end) return stop(s, at, pending, pos);
    pending--;
  }
  s.pos = pos;
  s.pending = 0;
  s.needed = 0;
  return true;
}

function stop(s: ScanState, pos: number, pending: number, needed: number): false {
  s.pos = pos;
  s.pending = pending;
  s.needed = needed;
  return false;
}
