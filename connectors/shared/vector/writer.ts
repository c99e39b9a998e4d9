/**
 * A small protobuf writer into one growing buffer. A nested message reserves one byte for its
 * length and moves its content only when the length needs more (messages of 128 bytes or more),
 * so the common small value costs no second pass. Output is canonical: minimal varints, fields in
 * the order they are written.
 */
export class ProtoWriter {
  buf: Buffer;
  pos = 0;

  constructor(size = 4096) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** Room for `n` more bytes. */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** Field tag: number and wire type. */
  tag(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  /** A non-negative integer below 2^53 as a varint. */
  varint(n: number): void {
    this.ensure(10);
    const b = this.buf;
    let p = this.pos;
    while (n >= 128) {
      b[p++] = (n % 128) | 128;
      n = Math.floor(n / 128);
    }
    b[p++] = n;
    this.pos = p;
  }

  /** int64 (and uint64): negative numbers as ten-byte two's complement. */
  int64(n: number): void {
    if (n >= 0) return this.varint(n);
    let u = BigInt.asUintN(64, BigInt(n));
    this.ensure(10);
    while (u >= 128n) {
      this.buf[this.pos++] = Number(u & 127n) | 128;
      u >>= 7n;
    }
    this.buf[this.pos++] = Number(u);
  }

  /** int32: negative numbers sign-extended to ten bytes, as protobuf requires. */
  int32(n: number): void {
    this.int64(n);
  }

  /** sint32 (zigzag). */
  sint32(n: number): void {
    this.varint(((n << 1) ^ (n >> 31)) >>> 0);
  }

  double(x: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(x, this.pos);
    this.pos += 8;
  }

  /** A length-delimited UTF-8 string. */
  string(s: string): void {
    const n = s.length;
    if (n < 43) {
      // at most 126 bytes of UTF-8: the length fits one byte, written after the text
      this.ensure(1 + n * 3);
      const len = this.buf.write(s, this.pos + 1, 'utf8');
      this.buf[this.pos] = len;
      this.pos += 1 + len;
      return;
    }
    const len = Buffer.byteLength(s, 'utf8');
    this.varint(len);
    this.ensure(len);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  bytes(b: Uint8Array): void {
    this.varint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Opens a nested message; pass the result to {@link end}. */
  begin(): number {
    this.ensure(1);
    return this.pos++;
  }

  /** Closes a nested message opened at `start`, writing its length. */
  end(start: number): void {
    const len = this.pos - start - 1;
    if (len < 128) {
      this.buf[start] = len;
      return;
    }
    // the length needs more than the byte reserved: move the content up
    const extra = varintSize(len) - 1;
    this.ensure(extra);
    this.buf.copyWithin(start + 1 + extra, start + 1, this.pos);
    this.pos += extra;
    let p = start;
    let n = len;
    while (n >= 128) {
      this.buf[p++] = (n % 128) | 128;
      n = Math.floor(n / 128);
    }
    this.buf[p] = n;
  }

  /** The bytes written so far (a view; copy before reusing the writer). */
  view(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  reset(): void {
    this.pos = 0;
  }
}

/** Bytes of `n` as a varint. */
export function varintSize(n: number): number {
  let s = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    s++;
  }
  return s;
}
