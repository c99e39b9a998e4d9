/** Hand-built forward protocol frames: the modes and shapes no client library sends. */
import { Packr } from 'msgpackr';
import { gzipSync } from 'node:zlib';

const packr = new Packr({ useRecords: false, variableMapSize: true });

/** msgpack of one value as msgpackr writes it (str, bin for Buffers, map for objects and Maps). */
export const pack = (x: unknown): Buffer => packr.pack(x);

/** A msgpack array of already-encoded elements. */
export function arr(...items: Buffer[]): Buffer {
  return Buffer.concat([Buffer.from([0x90 | items.length]), ...items]);
}

/** EventTime: fixext 8, type 0, uint32 BE seconds and nanoseconds. */
export function eventTime(secs: number, nanos: number): Buffer {
  const b = Buffer.alloc(10);
  b[0] = 0xd7;
  b[1] = 0x00;
  b.writeUInt32BE(secs, 2);
  b.writeUInt32BE(nanos, 6);
  return b;
}

/** EventTime written as ext 8 (0xc7, length 8, type 0), which the protocol also allows. */
export function eventTimeExt8(secs: number, nanos: number): Buffer {
  const b = Buffer.alloc(11);
  b[0] = 0xc7;
  b[1] = 8;
  b[2] = 0x00;
  b.writeUInt32BE(secs, 3);
  b.writeUInt32BE(nanos, 7);
  return b;
}

/** Message mode `[tag, time, record(, option)]`. */
export function message(tag: string, time: Buffer | number, record: unknown, option?: unknown): Buffer {
  const t = typeof time === 'number' ? pack(time) : time;
  return option === undefined ? arr(pack(tag), t, pack(record)) : arr(pack(tag), t, pack(record), pack(option));
}

/** One `[time, record]` entry. */
export function entry(time: Buffer | number, record: unknown): Buffer {
  return arr(typeof time === 'number' ? pack(time) : time, pack(record));
}

/** Forward mode `[tag, [entries…](, option)]`. */
export function forward(tag: string, entries: Buffer[], option?: unknown): Buffer {
  const list = Buffer.concat([Buffer.from([0xdc, entries.length >> 8, entries.length & 0xff]), ...entries]);
  return option === undefined ? arr(pack(tag), list) : arr(pack(tag), list, pack(option));
}

/** PackedForward `[tag, bin(, option)]`; `gzip` compresses the blob (CompressedPackedForward). */
export function packed(tag: string, entries: Buffer[], option?: Record<string, unknown>, opts: { gzip?: boolean; asStr?: boolean } = {}): Buffer {
  let blob = Buffer.concat(entries);
  if (opts.gzip) blob = gzipSync(blob);
  const body = opts.asStr ? pack(blob.toString('latin1')) : pack(blob);
  return option === undefined ? arr(pack(tag), body) : arr(pack(tag), body, pack(option));
}

/** gzip of several members concatenated. */
export function gzipMembers(parts: Buffer[]): Buffer {
  return Buffer.concat(parts.map((p) => gzipSync(p)));
}
