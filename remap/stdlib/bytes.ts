/** Byte strings: string values holding arbitrary bytes, converted to and from Buffers. */

const ESCAPE_LO = 0xdc80;

/**
 * Bytes of a string value. Text is UTF-8; bytes that were not valid UTF-8 when the value was
 * made are held as lone surrogates U+DC80..U+DCFF (Python's "surrogateescape"), so binary data
 * (hashes, compressed data) round-trips exactly.
 */
export function toBytes(s: string): Buffer {
  let plain = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= ESCAPE_LO && c <= 0xdcff) {
      plain = false;
      break;
    }
  }
  if (plain) return Buffer.from(s, 'utf8');
  const parts: Buffer[] = [];
  let run = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= ESCAPE_LO && c <= 0xdcff && !(i > 0 && s.charCodeAt(i - 1) >= 0xd800 && s.charCodeAt(i - 1) <= 0xdbff)) {
      if (run) parts.push(Buffer.from(run, 'utf8'));
      run = '';
      parts.push(Buffer.from([c - ESCAPE_LO + 0x80]));
    } else run += s[i];
  }
  if (run) parts.push(Buffer.from(run, 'utf8'));
  return Buffer.concat(parts);
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** String value of bytes: UTF-8 text, with invalid bytes kept as lone surrogates (see toBytes). */
export function fromBytes(b: Uint8Array): string {
  try {
    return strictUtf8.decode(b);
  } catch {
    /* not valid UTF-8: decode sequence by sequence */
  }
  let out = '';
  let i = 0;
  while (i < b.length) {
    const x = b[i]!;
    let n = x < 0x80 ? 1 : x >= 0xc2 && x <= 0xdf ? 2 : x >= 0xe0 && x <= 0xef ? 3 : x >= 0xf0 && x <= 0xf4 ? 4 : 0;
    if (n > 1) {
      try {
        out += strictUtf8.decode(b.subarray(i, i + n));
        i += n;
        continue;
      } catch {
        n = 0;
      }
    }
    if (n === 1) out += String.fromCharCode(x);
    else out += String.fromCharCode(x < 0x80 ? x : ESCAPE_LO + x - 0x80);
    i++;
  }
  return out;
}

const lossyUtf8 = new TextDecoder('utf-8');

/** Text for output (JSON): invalid byte runs become U+FFFD, as a lossy UTF-8 conversion does. */
export function lossyText(s: string): string {
  if (!/[\udc80-\udcff]/.test(s)) return s;
  return lossyUtf8.decode(toBytes(s));
}
