/**
 * One watched file: its open descriptor (a rename or an unlink does not take the content away),
 * the read position and the incomplete last line. Lines are cut at the delimiter; a line without
 * its delimiter is held (never more than `max_line_bytes` of it) until the rest is written. Reads
 * are synchronous and bounded by the caller, so one call holds at most one read's bytes.
 */
import { closeSync, fstatSync, readSync } from 'node:fs';
import type { EventBatch } from '../../../lib/event.js';
import type { OrderedSettlement } from '../../shared/source/index.js';
import type { LineAggregator } from './multiline.js';

/** Most bytes one read(2) of a file takes. */
export const READ_AHEAD_BYTES = 32 * 1024;

/** Receives one complete line: `buf[start, end)` (valid only during the call), at file byte `offset`. */
export type LineSink = (buf: Buffer, start: number, end: number, offset: number) => void;

/** What one read gave. */
export type ReadResult = 'data' | 'eof' | 'truncated';

/** A watched file; see the module comment. */
export class FileWatcher {
  /** Offset of the next byte to read. */
  private readPos: number;
  /** Offset just past the last line handed out or discarded: where a restart resumes. */
  committed: number;
  /** Bytes read past {@link committed}: the start of the incomplete line (or its tail while discarding). */
  private carry: Buffer = Buffer.alloc(0);
  /** Bytes of an over-long line dropped so far; -1 while no line is being discarded. */
  private discarded = -1;
  /** Whether the last discovery found this file at some path. */
  findable = true;
  /** Events read in this pass and not emitted yet (the source emits them in batches). */
  batch: EventBatch = [];
  /** The open multiline message (with `multiline`). */
  agg: LineAggregator | undefined = undefined;
  /** Scheduler time of the last read that returned data (remove_after_secs). */
  lastReadAt = 0;
  /** Scheduler time the file was first missed by a discovery. */
  lostAt = 0;
  /** Bytes read past the position handed out (see readChunk), starting at file offset {@link aheadAt}. */
  private ahead: Buffer | undefined = undefined;
  private aheadAt = 0;
  /** Bytes the last {@link next} read from the file. */
  private lastRead = 0;

  constructor(
    /** The path it was last found at. */
    public path: string,
    readonly fingerprint: string,
    readonly fd: number,
    readonly dev: number,
    readonly ino: number,
    position: number,
    readonly settlement: OrderedSettlement<number>,
    private readonly delimiter: Buffer,
    private readonly maxLineBytes: number,
  ) {
    this.readPos = position;
    this.committed = position;
  }

  /** Whether an end-of-file read means all content was read (a gzip file may still be decompressing). */
  get atEnd(): boolean {
    return true;
  }

  /** Bytes held for an incomplete line. */
  get heldBytes(): number {
    return this.carry.length;
  }

  /**
   * Reads at most `maxBytes` and hands out every line they complete. `onTooLong` gets the size of
   * each discarded line once its end is seen. Throws on a read error.
   */
  read(maxBytes: number, onLine: LineSink, onTooLong: (bytes: number) => void): { result: ReadResult; bytes: number } {
    const data = this.next(maxBytes);
    if (typeof data === 'string') return { result: data, bytes: 0 };
    const base = this.committed;
    const d = this.delimiter;
    let from = 0;
    for (;;) {
      const i = data.indexOf(d, from);
      if (i < 0) break;
      if (this.discarded >= 0) {
        onTooLong(this.discarded + i - from);
        this.discarded = -1;
      } else if (i - from > this.maxLineBytes) onTooLong(i - from);
      else onLine(data, from, i, base + from);
      from = i + d.length;
    }
    this.keepRest(data, base, from);
    return { result: 'data', bytes: this.lastRead };
  }

  /**
   * As {@link read}, but the lines the read completes are handed out as one region, `buf[start, end)`
   * from the start of the first to the end of the last delimiter, at file byte `offset`: for a
   * pipeline worker to cut (docs/threads.md), which also discards the long lines among them. Only
   * a line held across reads past `max_line_bytes` is discarded here.
   */
  readRegion(maxBytes: number, onRegion: LineSink, onTooLong: (bytes: number) => void): { result: ReadResult; bytes: number } {
    const data = this.next(maxBytes);
    if (typeof data === 'string') return { result: data, bytes: 0 };
    const base = this.committed;
    const d = this.delimiter;
    let from = 0;
    if (this.discarded >= 0) {
      const i = data.indexOf(d);
      if (i >= 0) {
        onTooLong(this.discarded + i);
        this.discarded = -1;
        from = i + d.length;
      }
    }
    if (this.discarded < 0) {
      const last = data.lastIndexOf(d);
      if (last >= from) {
        onRegion(data, from, last + d.length, base + from);
        from = last + d.length;
      }
    }
    this.keepRest(data, base, from);
    return { result: 'data', bytes: this.lastRead };
  }

  /** The next read (at most `maxBytes`) after the held incomplete line, from {@link committed} on; or why there is none. */
  private next(maxBytes: number): Buffer | 'eof' | 'truncated' {
    const got = this.readChunk(maxBytes, this.readPos);
    if (typeof got === 'string') return got;
    this.lastRead = got.length;
    this.readPos += got.length;
    return this.carry.length === 0 ? got : Buffer.concat([this.carry, got]);
  }

  /** Commits up to `from` (data starts at file byte `base`) and holds the rest: an incomplete line, or discards it once it is too long. */
  private keepRest(data: Buffer, base: number, from: number): void {
    const d = this.delimiter;
    this.committed = base + from;
    const rest = data.length - from;
    // a delimiter may straddle two reads: its first bytes stay in the carry
    const keep = d.length - 1;
    if (this.discarded >= 0 || rest > this.maxLineBytes + keep) {
      const dropped = Math.max(0, rest - keep);
      this.discarded = Math.max(0, this.discarded) + dropped;
      this.committed += dropped;
      this.carry = Buffer.from(data.subarray(data.length - Math.min(rest, keep)));
    } else this.carry = rest === 0 ? Buffer.alloc(0) : Buffer.from(data.subarray(from));
  }

  /** The held incomplete line, handed out as a line when the file is let go; none: nothing. */
  flushHeld(onLine: LineSink): void {
    if (this.carry.length === 0 || this.discarded >= 0) return;
    const held = this.carry;
    this.carry = Buffer.alloc(0);
    onLine(held, 0, held.length, this.committed);
    this.committed += held.length;
  }

  /**
   * At most `maxBytes` of content from `position` on; or why there are none now. One read(2) takes
   * up to {@link READ_AHEAD_BYTES}; what the round does not use serves the next rounds (a read of
   * max_read_bytes = 2048 each cost more in system calls than the rest of the reading). The bytes
   * ahead are dropped once used, so a file that has caught up with its end holds none.
   */
  protected readChunk(maxBytes: number, position: number): Buffer | 'eof' | 'truncated' {
    const ahead = this.ahead;
    if (ahead !== undefined) {
      const from = position - this.aheadAt;
      if (from >= 0 && from < ahead.length) {
        const chunk = ahead.subarray(from, from + maxBytes);
        if (from + chunk.length === ahead.length) this.ahead = undefined;
        return chunk;
      }
      this.ahead = undefined;
    }
    const size = Math.max(maxBytes, READ_AHEAD_BYTES);
    const buf = Buffer.allocUnsafe(size);
    const n = readSync(this.fd, buf, 0, size, position);
    if (n === 0) return fstatSync(this.fd).size < position ? 'truncated' : 'eof';
    if (n > maxBytes) {
      this.ahead = buf.subarray(0, n);
      this.aheadAt = position;
    }
    return buf.subarray(0, Math.min(n, maxBytes));
  }

  /** Starts over at the beginning of the file (it was truncated). */
  rewind(): void {
    this.ahead = undefined;
    this.readPos = 0;
    this.committed = 0;
    this.carry = Buffer.alloc(0);
    this.discarded = -1;
  }

  /** Closes the descriptor; errors are ignored (the file is being let go). */
  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
  }
}
