/**
 * The Kafka wire primitives and a schema interpreter for the test broker, written from Apache
 * Kafka's protocol guide: big-endian integers, zig-zag varints, and the two encodings of strings,
 * bytes and arrays (classic: int16/int32 lengths, -1 for null; flexible versions: unsigned varint
 * of length + 1, 0 for null, and a tagged-field section closing every structure). A message is
 * described as data (field name, type, versions it exists in), as Kafka's own message schemas are,
 * so one description reads and writes every version of a request or response.
 */

/** A field type: a primitive, an array of a primitive, or an array of structures. */
export type Primitive = 'int8' | 'int16' | 'int32' | 'int64' | 'bool' | 'string' | 'bytes' | 'uuid';
export interface Field {
  readonly name: string;
  readonly type: Primitive | `[]${Primitive}` | readonly Field[];
  readonly min: number;
  readonly max: number;
  /** Versions from which the field may be null. */
  readonly nullableFrom: number;
}

/** A field present in `versions` ('3+', '0-2', '5'), nullable from version `nullable` when given. */
export function f(name: string, type: Field['type'], versions = '0+', nullable = Infinity): Field {
  const [lo, hi] = versions.endsWith('+') ? [Number(versions.slice(0, -1)), Infinity] : versions.includes('-') ? versions.split('-').map(Number) : [Number(versions), Number(versions)];
  return { name, type, min: lo!, max: hi!, nullableFrom: nullable };
}

/** Decoded message: field name to value (numbers, bigint never: offsets fit a double here). */
export type Struct = Record<string, unknown>;

/** Reads primitives from one buffer. */
export class Reader {
  offset = 0;
  constructor(readonly buf: Buffer) {}
  get remaining(): number {
    return this.buf.length - this.offset;
  }
  private need(n: number): void {
    if (this.offset + n > this.buf.length) throw new RangeError(`truncated message: need ${n} bytes at ${this.offset} of ${this.buf.length}`);
  }
  int8(): number {
    this.need(1);
    return this.buf.readInt8(this.offset++);
  }
  int16(): number {
    this.need(2);
    const v = this.buf.readInt16BE(this.offset);
    this.offset += 2;
    return v;
  }
  int32(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.offset);
    this.offset += 4;
    return v;
  }
  uint32(): number {
    this.need(4);
    const v = this.buf.readUInt32BE(this.offset);
    this.offset += 4;
    return v;
  }
  int64(): number {
    this.need(8);
    const v = this.buf.readBigInt64BE(this.offset);
    this.offset += 8;
    return Number(v);
  }
  uvarint(): number {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      this.need(1);
      const b = this.buf[this.offset++]!;
      value += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return value;
      if (shift > 63) throw new RangeError('varint too long');
    }
  }
  /** Zig-zag signed varint (varint and varlong alike, as a double). */
  varint(): number {
    const u = this.uvarint();
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
  }
  raw(n: number): Buffer {
    this.need(n);
    const b = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return b;
  }
}

/** Appends primitives to a growing list of chunks. */
export class Writer {
  private readonly chunks: Buffer[] = [];
  length = 0;
  private push(b: Buffer): this {
    this.chunks.push(b);
    this.length += b.length;
    return this;
  }
  int8(v: number): this {
    const b = Buffer.allocUnsafe(1);
    b.writeInt8(v);
    return this.push(b);
  }
  int16(v: number): this {
    const b = Buffer.allocUnsafe(2);
    b.writeInt16BE(v);
    return this.push(b);
  }
  int32(v: number): this {
    const b = Buffer.allocUnsafe(4);
    b.writeInt32BE(v);
    return this.push(b);
  }
  int64(v: number): this {
    const b = Buffer.allocUnsafe(8);
    b.writeBigInt64BE(BigInt(v));
    return this.push(b);
  }
  uvarint(v: number): this {
    const bytes: number[] = [];
    while (v >= 0x80) {
      bytes.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    bytes.push(v);
    return this.push(Buffer.from(bytes));
  }
  varint(v: number): this {
    return this.uvarint(v >= 0 ? v * 2 : -v * 2 - 1);
  }
  raw(b: Buffer): this {
    return this.push(b);
  }
  done(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }
}

/** Skips a tagged-field section (the broker knows none of the optional tags it could receive). */
export function skipTags(r: Reader): void {
  for (let n = r.uvarint(); n > 0; n--) {
    r.uvarint();
    r.raw(r.uvarint());
  }
}

function readLength(r: Reader, flexible: boolean, wide: boolean): number {
  if (flexible) return r.uvarint() - 1;
  return wide ? r.int32() : r.int16();
}

function readPrimitive(r: Reader, t: Primitive, flexible: boolean): unknown {
  switch (t) {
    case 'int8':
      return r.int8();
    case 'int16':
      return r.int16();
    case 'int32':
      return r.int32();
    case 'int64':
      return r.int64();
    case 'bool':
      return r.int8() !== 0;
    case 'uuid':
      return r.raw(16).toString('hex');
    case 'string': {
      const n = readLength(r, flexible, false);
      return n < 0 ? null : r.raw(n).toString('utf8');
    }
    case 'bytes': {
      const n = readLength(r, flexible, true);
      return n < 0 ? null : Buffer.from(r.raw(n));
    }
  }
}

/** Reads one structure of `version`. */
export function readStruct(r: Reader, fields: readonly Field[], version: number, flexible: boolean): Struct {
  const out: Struct = {};
  for (const field of fields) {
    if (version < field.min || version > field.max) continue;
    const value = readValue(r, field.type, version, flexible);
    if (value === null && version < field.nullableFrom) throw new RangeError(`field ${field.name} is null, which version ${version} does not allow`);
    out[field.name] = value;
  }
  if (flexible) skipTags(r);
  return out;
}

function readValue(r: Reader, type: Field['type'], version: number, flexible: boolean): unknown {
  if (typeof type === 'string' && !type.startsWith('[]')) return readPrimitive(r, type as Primitive, flexible);
  const n = flexible ? r.uvarint() - 1 : r.int32();
  if (n < 0) return null;
  const items: unknown[] = [];
  for (let i = 0; i < n; i++) items.push(typeof type === 'string' ? readPrimitive(r, type.slice(2) as Primitive, flexible) : readStruct(r, type, version, flexible));
  return items;
}

function writeLength(w: Writer, n: number, flexible: boolean, wide: boolean): void {
  if (flexible) w.uvarint(n + 1);
  else if (wide) w.int32(n);
  else w.int16(n);
}

function writePrimitive(w: Writer, t: Primitive, value: unknown, flexible: boolean): void {
  switch (t) {
    case 'int8':
      w.int8(Number(value ?? 0));
      return;
    case 'int16':
      w.int16(Number(value ?? 0));
      return;
    case 'int32':
      w.int32(Number(value ?? 0));
      return;
    case 'int64':
      w.int64(Number(value ?? 0));
      return;
    case 'bool':
      w.int8(value === true ? 1 : 0);
      return;
    case 'uuid':
      w.raw(Buffer.from(String(value ?? '0'.repeat(32)), 'hex'));
      return;
    case 'string': {
      if (value === null || value === undefined) return writeLength(w, -1, flexible, false);
      const b = Buffer.from(String(value), 'utf8');
      writeLength(w, b.length, flexible, false);
      w.raw(b);
      return;
    }
    case 'bytes': {
      if (value === null || value === undefined) return writeLength(w, -1, flexible, true);
      const b = value as Buffer;
      writeLength(w, b.length, flexible, true);
      w.raw(b);
      return;
    }
  }
}

/** Writes one structure of `version`; a missing value is written as zero, empty or null. */
export function writeStruct(w: Writer, fields: readonly Field[], value: Struct, version: number, flexible: boolean): void {
  for (const field of fields) {
    if (version < field.min || version > field.max) continue;
    const v = value[field.name];
    if (typeof field.type === 'string' && !field.type.startsWith('[]')) {
      const t = field.type as Primitive;
      // a string field left unset is empty where it may not be null
      writePrimitive(w, t, v === undefined && t === 'string' && version < field.nullableFrom ? '' : v, flexible);
      continue;
    }
    const items = v as unknown[] | null | undefined;
    if (items === null || (items === undefined && version >= field.nullableFrom)) {
      if (flexible) w.uvarint(0);
      else w.int32(-1);
      continue;
    }
    const list = items ?? [];
    if (flexible) w.uvarint(list.length + 1);
    else w.int32(list.length);
    for (const item of list) {
      if (typeof field.type === 'string') writePrimitive(w, field.type.slice(2) as Primitive, item, flexible);
      else writeStruct(w, field.type, item as Struct, version, flexible);
    }
  }
  if (flexible) w.uvarint(0);
}
