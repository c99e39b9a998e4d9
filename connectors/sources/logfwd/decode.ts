/**
 * Forward protocol frames (Fluentd Forward Protocol v1) from one connection's byte stream. Frames are
 * msgpack values sent back to back; a value may span reads, so the unread rest is kept until it
 * completes, up to `maxFrameBytes` (beyond that the frame is an error and the connection ends).
 * Recognised shapes: Message `[tag, time, record(, option)]`, Forward `[tag, [[time, record]…](, option)]`,
 * PackedForward `[tag, bin(, option)]` (gzip-compressed with `compressed: "gzip"`), and `nil`
 * as a heartbeat. Anything else is a {@link ForwardDecodeError}.
 */
import type { Unpackr } from 'msgpackr';
import { decompressSync } from '../../../lib/net/compression.js';
import { Timestamp } from '../../../lib/value.js';
import { MsgpackExt } from './msgpack.js';
import { type ScanState, scanValue } from './scan.js';

/** A frame that cannot be decoded; `bytes` is the offending input (logged base64-encoded). */
export class ForwardDecodeError extends Error {
  override name = 'ForwardDecodeError';
  constructor(
    message: string,
    readonly bytes: Buffer,
  ) {
    super(message);
  }
}

/** Receives each record of a frame: its tag, time and the record map as decoded. */
export type RecordSink = (tag: string, time: Timestamp, record: Map<unknown, unknown>) => void;

/** Limits of one decoder. */
export interface ForwardDecoderOptions {
  /** Most bytes held for one incomplete frame. */
  readonly maxFrameBytes: number;
  /** Most bytes a compressed blob may inflate to. */
  readonly maxDecompressedBytes: number;
}

/** One connection's frame decoder. */
export interface ForwardDecoder {
  /**
   * Decodes every frame completed by `chunk`, records to `onRecord`, `chunk` option values
   * (ack requests) to `chunks`, in order. Throws {@link ForwardDecodeError} at the first bad frame;
   * the records of earlier frames were delivered.
   */
  push(chunk: Buffer, onRecord: RecordSink, chunks: string[]): void;
  /** End of stream: throws when an incomplete frame is left. */
  end(): void;
}

const EMPTY = Buffer.alloc(0);

/** The limits plus the unpacker; packed blobs are read after the outer unpackMultiple returned, so one unpacker serves both. */
interface Settings extends ForwardDecoderOptions {
  readonly unpackr: Unpackr;
  /** The frame being decoded: its tag and records, held until it is known to be whole. */
  tag: string;
  readonly times: Timestamp[];
  readonly records: Map<unknown, unknown>[];
}

/** A decoder for one connection; `unpackr` from msgpack.ts createUnpackr. */
export function createForwardDecoder(unpackr: Unpackr, limits: ForwardDecoderOptions): ForwardDecoder {
  const opts: Settings = { maxFrameBytes: limits.maxFrameBytes, maxDecompressedBytes: limits.maxDecompressedBytes, unpackr, tag: '', times: [], records: [] };
  const stage: RecordSink = (tag, time, rec) => {
    opts.tag = tag;
    opts.times.push(time);
    opts.records.push(rec);
  };
  // unread bytes: store[0..held); the scan of the frame at its start resumes where it stopped
  let store: Buffer = EMPTY;
  let held = 0;
  const scan: ScanState = { pos: 0, pending: 0, needed: 0 };
  const values: unknown[] = [];
  const ends: number[] = [];
  const tooLarge = (buf: Buffer, frameBytes: number) => {
    if (frameBytes <= opts.maxFrameBytes) return;
    const head = Buffer.from(buf.subarray(0, 64));
    held = 0;
    scan.pos = scan.pending = scan.needed = 0;
    throw new ForwardDecodeError(`frame larger than ${opts.maxFrameBytes} bytes`, head);
  };
  /** Appends to the store, doubling its size when full (a frame over many reads is copied O(n) in all). */
  const keep = (src: Buffer, from: number) => {
    const n = src.length - from;
    if (held + n > store.length) {
      const grown = Buffer.allocUnsafe(Math.max(held + n, store.length * 2, 65_536));
      store.copy(grown, 0, 0, held);
      store = grown;
    }
    src.copy(store, held, from);
    held += n;
  };
  return {
    push(chunk, onRecord, chunks) {
      // nothing held: scan the chunk itself, copy only an incomplete tail
      let buf: Buffer;
      if (held === 0) buf = chunk;
      else {
        keep(chunk, 0);
        buf = store;
      }
      const end = held === 0 ? chunk.length : held;
      let complete = 0;
      for (;;) {
        if (scan.pending === 0) {
          if (scan.pos >= end) break;
          scan.pending = 1;
        }
        if (!scanValue(buf, end, scan)) break;
        complete = scan.pos;
      }
      if (complete > 0) {
        values.length = 0;
        ends.length = 0;
        try {
          unpackr.unpackMultiple(buf.subarray(0, complete), (value: unknown, _start?: number, e?: number) => {
            values.push(value);
            ends.push(e!);
          });
        } catch (err) {
          // not msgpack: the frames before the bad one still count, then the connection ends
          const at = ends.length > 0 ? ends[ends.length - 1]! : 0;
          const head = Buffer.from(buf.subarray(at, at + 64));
          held = 0;
          scan.pos = scan.pending = scan.needed = 0;
          deliver(buf, values, ends, onRecord, stage, chunks, opts);
          throw new ForwardDecodeError(`invalid msgpack: ${(err as Error).message}`, head);
        }
        try {
          deliver(buf, values, ends, onRecord, stage, chunks, opts);
        } catch (err) {
          held = 0;
          scan.pos = scan.pending = scan.needed = 0;
          throw err;
        }
      }
      // values hold no views of the buffer past deliver (toValue copies), so the store may be reused
      const restStart = complete;
      const restLen = end - restStart;
      if (buf === chunk) {
        held = 0;
        if (restLen > 0) keep(chunk, restStart);
      } else if (restStart > 0) {
        store.copy(store, 0, restStart, end);
        held = restLen;
      }
      scan.pos -= restStart;
      if (scan.needed > 0) scan.needed -= restStart;
      // the frame is known to need more than the cap: an error now rather than after buffering it
      tooLarge(store, Math.max(held, scan.needed));
    },
    end() {
      if (held === 0) return;
      const head = Buffer.from(store.subarray(0, Math.min(64, held)));
      held = 0;
      scan.pos = scan.pending = scan.needed = 0;
      throw new ForwardDecodeError('frame cut off by the end of the stream', head);
    },
  };
}

function deliver(buf: Buffer, values: unknown[], ends: number[], onRecord: RecordSink, stage: RecordSink, chunks: string[], opts: Settings): void {
  let start = 0;
  for (let i = 0; i < values.length; i++) {
    const end = ends[i]!;
    const times = opts.times;
    const records = opts.records;
    times.length = 0;
    records.length = 0;
    // records wait until their whole frame decoded: a bad entry fails the whole frame, as in Vector
    const reason = frame(values[i], stage, chunks, opts);
    if (reason !== undefined) throw new ForwardDecodeError(reason, buf.subarray(start, end));
    for (let j = 0; j < times.length; j++) onRecord(opts.tag, times[j]!, records[j]!);
    start = end;
  }
}

/** Decodes one frame; returns why it is invalid, or undefined. */
function frame(value: unknown, onRecord: RecordSink, chunks: string[], opts: Settings): string | undefined {
  if (value === null || value === undefined) return undefined; // heartbeat
  if (!Array.isArray(value) || value.length < 2 || value.length > 4) return 'unexpected msgpack value';
  const tag: unknown = value[0];
  if (typeof tag !== 'string') return 'tag is not a string';
  const second: unknown = value[1];
  if (Array.isArray(second)) {
    // Forward
    if (value.length > 3) return 'unexpected msgpack value';
    const option = readOption(value[2]);
    if (typeof option === 'string') return option;
    for (let i = 0; i < second.length; i++) {
      const reason = entry(tag, second[i], onRecord);
      if (reason !== undefined) return reason;
    }
    return requestAck(option, chunks);
  }
  // a str blob is not accepted: msgpackr decodes str as UTF-8, which loses the entries' bytes
  if (second instanceof Uint8Array) {
    // PackedForward, maybe compressed
    if (value.length > 3) return 'unexpected msgpack value';
    const option = readOption(value[2]);
    if (typeof option === 'string') return option;
    let blob = Buffer.from(second.buffer, second.byteOffset, second.byteLength);
    const compressed: unknown = option?.get('compressed');
    if (compressed === 'gzip') {
      try {
        blob = decompressSync(blob, { algorithm: 'gzip', maxBytes: opts.maxDecompressedBytes });
      } catch (err) {
        return `gzip entries: ${(err as Error).message}`;
      }
    } else if (compressed !== undefined && compressed !== 'text') return `unknown compression ${JSON.stringify(String(compressed))}`;
    const reason = packedEntries(tag, blob, onRecord, opts);
    if (reason !== undefined) return reason;
    return requestAck(option, chunks);
  }
  // Message
  if (value.length < 3) return 'unexpected msgpack value';
  const option = readOption(value[3]);
  if (typeof option === 'string') return option;
  const reason = record(tag, second, value[2], onRecord);
  if (reason !== undefined) return reason;
  return requestAck(option, chunks);
}

/** The option map, undefined when absent, or why it is invalid. */
function readOption(x: unknown): Map<unknown, unknown> | undefined | string {
  if (x === undefined || x === null) return undefined;
  return x instanceof Map ? x : 'option is not a map';
}

function requestAck(option: Map<unknown, unknown> | undefined, chunks: string[]): undefined | string {
  const chunk: unknown = option?.get('chunk');
  if (chunk === undefined || chunk === null) return undefined;
  if (typeof chunk !== 'string') return 'chunk option is not a string';
  chunks.push(chunk);
  return undefined;
}

function entry(tag: string, e: unknown, onRecord: RecordSink): string | undefined {
  if (!Array.isArray(e) || e.length !== 2) return 'entry is not a [time, record] array';
  return record(tag, e[0], e[1], onRecord);
}

/** Entries of a packed blob, one by one; a truncated last entry is ignored (as in Vector). */
function packedEntries(tag: string, blob: Buffer, onRecord: RecordSink, opts: Settings): string | undefined {
  const entries: unknown[] = [];
  try {
    opts.unpackr.unpackMultiple(blob, (v: unknown) => {
      entries.push(v);
    });
  } catch (err) {
    if ((err as { incomplete?: boolean }).incomplete !== true) return `packed entries: ${(err as Error).message}`;
  }
  for (let i = 0; i < entries.length; i++) {
    const reason = entry(tag, entries[i], onRecord);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

function record(tag: string, time: unknown, rec: unknown, onRecord: RecordSink): string | undefined {
  const ts = readTime(time);
  if (ts === undefined) return 'time is neither an integer nor an EventTime';
  if (!(rec instanceof Map)) return 'record is not a map';
  onRecord(tag, ts, rec);
  return undefined;
}

/** Integer seconds, or EventTime: ext type 0 with 8 bytes, uint32 BE seconds then nanoseconds. */
function readTime(x: unknown): Timestamp | undefined {
  if (typeof x === 'number') return Number.isInteger(x) ? new Timestamp(x * 1000, 0) : undefined;
  if (typeof x === 'bigint') return Timestamp.fromNanos(x * 1_000_000_000n);
  if (x instanceof MsgpackExt && x.code === 0 && x.bytes.length === 8) {
    const secs = x.bytes.readUInt32BE(0);
    const nanos = x.bytes.readUInt32BE(4);
    const ms = Math.floor(nanos / 1_000_000);
    return new Timestamp(secs * 1000 + ms, nanos - ms * 1_000_000);
  }
  return undefined;
}
