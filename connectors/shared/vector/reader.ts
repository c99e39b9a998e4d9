/** A protobuf reader over one buffer: varints, fixed 64-bit, length-delimited ranges, skipping. */

/** The bytes are not a well-formed message. */
export class ProtoError extends Error {
  override readonly name = 'ProtoError';
}

export class ProtoReader {
  pos: number;
  constructor(
    readonly buf: Buffer,
    pos = 0,
    public end = buf.length,
  ) {
    this.pos = pos;
  }

  /** An unsigned varint as a number (exact below 2^53). */
  varint(): number {
    const b = this.buf;
    let p = this.pos;
    if (p >= this.end) throw new ProtoError('truncated varint');
    let byte = b[p++]!;
    if (byte < 128) {
      this.pos = p;
      return byte;
    }
    let n = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (p > this.end) throw new ProtoError('truncated varint');
      n += (byte & 127) * mul;
      if (byte < 128) {
        this.pos = p;
        return n;
      }
      mul *= 128;
      byte = b[p++]!;
    }
    throw new ProtoError('varint longer than 10 bytes');
  }

  /** A signed int64 (and int32): ten-byte encodings are negative numbers, read exactly through BigInt. */
  int64(): number {
    const start = this.pos;
    const n = this.varint();
    if (this.pos - start < 10) return n;
    let u = 0n;
    for (let i = this.pos - 1; i >= start; i--) u = (u << 7n) | BigInt(this.buf[i]! & 127);
    return Number(BigInt.asIntN(64, u));
  }

  /** A zigzag sint32. */
  sint32(): number {
    const n = this.varint();
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }

  double(): number {
    if (this.pos + 8 > this.end) throw new ProtoError('truncated double');
    const x = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return x;
  }

  /** Reads a length prefix; returns the end of the delimited range and leaves `pos` at its start. */
  delimited(): number {
    const len = this.varint();
    const end = this.pos + len;
    if (end > this.end) throw new ProtoError('length past the end of the message');
    return end;
  }

  string(): string {
    const end = this.delimited();
    const s = this.buf.toString('utf8', this.pos, end);
    this.pos = end;
    return s;
  }

  /** Skips a field's value of the given wire type. */
  skip(wireType: number): void {
    switch (wireType) {
      case 0:
        this.varint();
        return;
      case 1:
        this.pos += 8;
        break;
      case 2:
        this.pos = this.delimited();
        return;
      case 5:
        this.pos += 4;
        break;
      default:
        throw new ProtoError(`unsupported wire type ${wireType}`);
    }
    if (this.pos > this.end) throw new ProtoError('truncated field');
  }
}
