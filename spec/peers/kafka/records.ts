/**
 * Record batches (magic 2), as Kafka's protocol guide lays them out: a 61-byte header (base offset,
 * length, leader epoch, magic, CRC-32C of everything after the CRC field, attributes, offset and
 * timestamp deltas, producer id, epoch and sequence, record count) then the records, compressed as
 * a whole by the codec in the low three attribute bits. The broker checks each batch it is given
 * (magic, CRC, length, that the records decode to the announced count) and keeps it as it came,
 * only stamping its base offset: the CRC does not cover it.
 */
import { gunzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { snappyUncompress } from '../../../lib/net/snappy.js';
import { Reader } from './codec.js';

const require = createRequire(import.meta.url);

/** CRC-32C (Castagnoli) table, reflected polynomial 0x82F63B78. */
const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32c(buf: Buffer): number {
  let crc = 0xffffffff;
  for (let i = 0; i < buf.length; i++) crc = CRC32C_TABLE[(crc ^ buf[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** One record of a batch. */
export interface KafkaRecord {
  readonly offset: number;
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: ReadonlyArray<readonly [string, Buffer | null]>;
}

/** A checked batch: its bytes (base offset still to stamp) and what the log needs. */
export interface CheckedBatch {
  readonly bytes: Buffer;
  readonly count: number;
  readonly lastOffsetDelta: number;
  readonly maxTimestamp: number;
  readonly codec: number;
}

/** Why a batch was refused, with the Kafka error code to answer. */
export class BatchError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;

/** Snappy as Kafka clients send it: raw, or in the xerial framing the Java client uses. */
function unsnappy(data: Buffer): Buffer {
  const xerial = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
  if (data.length >= 16 && data.subarray(0, 8).equals(xerial)) {
    const parts: Buffer[] = [];
    for (let at = 16; at < data.length; ) {
      const n = data.readInt32BE(at);
      parts.push(snappyUncompress(data.subarray(at + 4, at + 4 + n)));
      at += 4 + n;
    }
    return Buffer.concat(parts);
  }
  return snappyUncompress(data);
}

/** The LZ4 frame decoder of the JS client's optional add-on (the test peer's only LZ4 implementation). */
function unlz4(data: Buffer): Buffer {
  const lz4 = require('lz4-napi') as { decompressFrameSync(b: Buffer): Buffer };
  return lz4.decompressFrameSync(data);
}

/** Decompresses a batch's record section. */
export function decompress(codec: number, data: Buffer): Buffer {
  switch (codec) {
    case 0:
      return data;
    case 1:
      return gunzipSync(data);
    case 2:
      return unsnappy(data);
    case 3:
      return unlz4(data);
    default:
      throw new BatchError(76, `compression ${CODECS[codec] ?? codec} is not supported by this broker`);
  }
}

/** Splits a produced `records` field into checked batches. */
export function checkBatches(records: Buffer): CheckedBatch[] {
  const out: CheckedBatch[] = [];
  let at = 0;
  while (at < records.length) {
    if (records.length - at < 61) throw new BatchError(2, `truncated record batch header at byte ${at}`);
    const length = records.readInt32BE(at + 8);
    const end = at + 12 + length;
    if (length < 49 || end > records.length) throw new BatchError(2, `record batch length ${length} does not fit the ${records.length - at} bytes left`);
    const batch = records.subarray(at, end);
    const magic = batch.readInt8(16);
    if (magic !== 2) throw new BatchError(43, `record batch magic ${magic}: only magic 2 is accepted`);
    const crc = batch.readUInt32BE(17);
    const computed = crc32c(batch.subarray(21));
    if (crc !== computed) throw new BatchError(2, `record batch CRC ${crc} does not match the computed ${computed}`);
    const attributes = batch.readInt16BE(21);
    const codec = attributes & 0x07;
    if ((attributes & 0x10) !== 0) throw new BatchError(53, 'transactional batches are not supported by this broker');
    if ((attributes & 0x20) !== 0) throw new BatchError(87, 'control batches cannot be produced');
    const lastOffsetDelta = batch.readInt32BE(23);
    const maxTimestamp = Number(batch.readBigInt64BE(35));
    const count = batch.readInt32BE(57);
    if (count !== lastOffsetDelta + 1) throw new BatchError(87, `record count ${count} does not match last offset delta ${lastOffsetDelta}`);
    // decoding every record proves the batch is whole
    const decoded = readRecords(batch, 0);
    if (decoded.length !== count) throw new BatchError(87, `record batch announces ${count} records and holds ${decoded.length}`);
    out.push({ bytes: Buffer.from(batch), count, lastOffsetDelta, maxTimestamp, codec });
    at = end;
  }
  if (out.length === 0) throw new BatchError(87, 'a produce request with no record batch');
  return out;
}

function readBytes(r: Reader): Buffer | null {
  const n = r.varint();
  return n < 0 ? null : Buffer.from(r.raw(n));
}

/** The records of one stored batch, their offsets from `baseOffset`. */
export function readRecords(batch: Buffer, baseOffset: number): KafkaRecord[] {
  const attributes = batch.readInt16BE(21);
  const baseTimestamp = Number(batch.readBigInt64BE(27));
  const count = batch.readInt32BE(57);
  const body = new Reader(decompress(attributes & 0x07, batch.subarray(61)));
  const out: KafkaRecord[] = [];
  for (let i = 0; i < count; i++) {
    const length = body.varint();
    const end = body.offset + length;
    body.int8(); // record attributes, unused
    const timestamp = baseTimestamp + body.varint();
    const offset = baseOffset + body.varint();
    const key = readBytes(body);
    const value = readBytes(body);
    const headers: Array<[string, Buffer | null]> = [];
    for (let n = body.varint(); n > 0; n--) {
      const k = readBytes(body);
      headers.push([k?.toString('utf8') ?? '', readBytes(body)]);
    }
    if (body.offset !== end) throw new BatchError(87, `record ${i} length ${length} does not match its fields`);
    out.push({ offset, timestamp, key, value, headers });
  }
  if (body.remaining !== 0) throw new BatchError(87, `${body.remaining} bytes after the last record`);
  return out;
}
