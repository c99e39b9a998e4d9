/**
 * Disk edge buffer on classic-level (`disk`, format version 2, and `disk_v1`).
 *
 * One LevelDB store per sink. Records are keyed by 8-byte big-endian sequence numbers, so key
 * order is write order and a restart reads them back FIFO. A record holds one or more encoded
 * events ({@link RecordFormat}: `disk` packs many, `disk_v1` one per record).
 *
 * Writing: `push()` adds the events to the open record and schedules a flush after the current
 * turn (at once when source acknowledgements wait); one `db.batch()` is in flight at a time, so
 * everything pushed meanwhile coalesces into the next one (group commit), and puts and deletes
 * reach LevelDB in the order they were made. A record is encoded when its write begins (see
 * "Encoding" below); v2 records are carved from reused 1 MiB slabs and checksummed then. A write with
 * `{ sync: true }` goes out at least every `syncIntervalMs` (500) while anything is unsynced, so
 * everything before it survives a crash.
 *
 * Reading: `pull()` hands out records in key order, each event carrying one {@link BatchNotifier}
 * per record; when every event of a record has settled (whatever the status: the sink is done
 * with it) its key is deleted. Recently sealed records stay in memory (up to 512 KiB) so a reader
 * that keeps up takes them without a disk read; older ones are read and decoded from the store.
 * A waiting reader gets what is pushed at once (the open record is sealed for it), so it does
 * not fall behind the in-memory tail; reads from disk stop where the tail begins.
 *
 * A record whose sink settled it before its write began is never written (nor deleted): the
 * write would only be undone by the delete after it. So a reader that keeps up costs the disk
 * only what it has not finished when a write starts, and a slow disk does not hold back a fast
 * sink. Records carrying source acknowledgements are always written and synced first.
 * Events handed out and not settled before a crash or shutdown are read again after the restart
 * (at-least-once).
 *
 * Acknowledgements: the source's own notifiers are taken off each event when it is pushed and
 * settled `delivered` once a synced write holds it: from then on the buffer owns delivery, which
 * survives restarts, and a source does not wait for a destination that may be down for hours.
 * A write that carries such notifiers is synced at once instead of waiting for the timer, so
 * acknowledging sources are released after one fsync. A failed write settles them `errored`.
 *
 * Encoding: a record is encoded when its write begins, so one its sink settled before then is
 * never encoded at all: a reader that keeps up costs neither the disk nor the encoding. Sinks
 * never change the events they are handed (they may be retried), so the bytes written then are
 * the ones pushed. Three kinds of record are encoded at push instead: those carrying source
 * acknowledgements (always written, and an event that cannot be encoded is rejected to its
 * source), those of a `drop_newest` buffer (what fits is decided on exact sizes), and any pushed
 * while more than {@link DEFER_BYTES} of records wait unencoded (a slow disk does not keep a
 * backlog of event objects, only of bytes). An event found not encodable at the write is left out
 * of its record on disk, counted and logged; the sink still gets it from memory while the tail
 * holds its record, and it is lost when its record is to be read back from disk.
 *
 * Size: `max_size` and `buffer_byte_size` count record bytes still on disk or to be written,
 * including records handed to the sink and not yet settled (what a restart would replay); so
 * does `buffer_events`. A record not yet encoded counts its events' size ({@link batchSize}, the
 * figure the pipeline's own counters use) until its write encodes it; the
 * `buffer_*_event_bytes_total` counters count what each record counted when it was pushed.
 * `length` counts events not yet handed out. Under `block`, the gate also closes while more than
 * 1 MiB wait to be written.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClassicLevel } from 'classic-level';
import { BatchNotifier, type Event, type EventBatch, batchSize, rememberBatchSize, settleAll } from '../event.js';
import { GateController } from '../gate.js';
import type { Logger } from '../log.js';
import { lazyModule } from '../lazy-module.js';
import type { Counter } from '../telemetry/registry.js';
import type { BufferMetrics, EdgeBuffer, WhenFull } from './buffer.js';
import { ByteReader, ByteWriter, DecodeError, type FieldNames, crc32, readEvent, writeEvent } from './serialize.js';

const classicLevel = lazyModule<typeof import('classic-level')>('classic-level');

/** Builds one record at a time from events. */
export interface RecordBuilder {
  /** Events in the open record. */
  readonly count: number;
  /** Encoded size of the open record if sealed now; 0 while empty. */
  readonly bytes: number;
  /** Adds an event (encoded now: later mutation of the event cannot reach the disk). */
  append(e: Event): void;
  /** Removes the event appended last (drop_newest found it does not fit). */
  undo(): void;
  /**
   * Returns the record's bytes (never written to again) and starts an empty one. With `checksum`
   * false the record is complete only after {@link RecordFormat.checksum}: a record its sink
   * settles before the write begins never needs it.
   */
  seal(checksum?: boolean): Buffer;
  /** The bytes of a sealed record are no longer needed (written, or never to be): they may be reused. */
  release?(record: Buffer): void;
}

/** An on-disk record layout: `disk` = version 2, `disk_v1` = version 1. */
export interface RecordFormat {
  readonly version: 1 | 2;
  /** A record is sealed once it holds this many events… */
  readonly maxEvents: number;
  /** …or this many bytes. */
  readonly maxBytes: number;
  createBuilder(): RecordBuilder;
  /** Event count from the header alone, 0 when unreadable; deterministic for the same bytes. */
  countOf(record: Buffer): number;
  /** All events of a record; throws {@link DecodeError} on damage. */
  decode(record: Buffer): Event[];
  /** Completes a record sealed without its checksum (formats that have one). */
  checksum?(record: Buffer): void;
}

const V2 = 2;
/** version u8, CRC-32 u32 over the rest, event count u32. */
const V2_HEADER = 9;

/** Records are carved one after another from slabs of this size: sealing one copies nothing. */
const SLAB_BYTES = 1024 * 1024;
/** A record starts in a fresh slab when less than this is left, so a full record fits whole. */
const SLAB_ROOM = 320 * 1024;
/** Slabs whose records were all released, kept for reuse (fewer large allocations, fewer GCs). */
const FREE_SLABS = 2;

const checksumV2 = (record: Buffer): void => {
  record.writeUInt32BE(crc32(record.subarray(5)), 1);
};

class BinaryRecordBuilder implements RecordBuilder {
  private readonly w = new ByteWriter(SLAB_BYTES);
  /** Sealed records not yet released, by the memory of their slab. */
  private readonly live = new Map<ArrayBufferLike, number>();
  private readonly free: Buffer[] = [];
  /** Where the open record starts in the slab. */
  private start = 0;
  private prev: Event | undefined = undefined;
  private lastPos = 0;
  private lastPrev: Event | undefined = undefined;
  /** Field names of the record's last log event, and what they were before the last append. */
  private readonly fieldNames: FieldNames = { names: undefined };
  private lastNames: string[] | undefined = undefined;
  count = 0;
  get bytes(): number {
    return this.count === 0 ? 0 : this.w.pos - this.start;
  }
  append(e: Event): void {
    const w = this.w;
    if (this.count === 0) {
      if (w.buf.length - w.pos < SLAB_ROOM) {
        // sealed records keep the old slab alive and are never written again; it is reused once all are released
        if (!this.live.has(w.buf.buffer) && w.buf.length === SLAB_BYTES && this.free.length < FREE_SLABS) this.free.push(w.buf);
        w.buf = this.free.pop() ?? Buffer.allocUnsafe(SLAB_BYTES);
        w.pos = 0;
      }
      this.start = w.pos;
      w.u8(V2);
      w.u32(0);
      w.u32(0);
    }
    this.lastPos = w.pos;
    this.lastPrev = this.prev;
    this.lastNames = this.fieldNames.names;
    try {
      writeEvent(w, e, this.prev, this.fieldNames);
    } catch (err) {
      w.pos = this.count === 0 ? this.start : this.lastPos; // the record stays as it was
      this.fieldNames.names = this.lastNames;
      throw err;
    }
    this.prev = e;
    this.count++;
  }
  undo(): void {
    this.count--;
    this.w.pos = this.count === 0 ? this.start : this.lastPos;
    this.prev = this.lastPrev;
    this.fieldNames.names = this.lastNames;
  }
  seal(checksum = true): Buffer {
    const out = this.w.buf.subarray(this.start, this.w.pos);
    this.live.set(out.buffer, (this.live.get(out.buffer) ?? 0) + 1);
    out.writeUInt32BE(this.count, 5);
    if (checksum) checksumV2(out);
    this.start = this.w.pos;
    this.count = 0;
    this.prev = undefined;
    this.lastPrev = undefined;
    this.fieldNames.names = undefined;
    this.lastNames = undefined;
    return out;
  }
  release(record: Buffer): void {
    const n = this.live.get(record.buffer);
    if (n === undefined) return;
    if (n > 1) {
      this.live.set(record.buffer, n - 1);
      return;
    }
    this.live.delete(record.buffer);
    const slab = Buffer.from(record.buffer, 0, record.buffer.byteLength);
    // the slab being filled is reused in place; a full one goes to the free list
    if (record.buffer !== this.w.buf.buffer && slab.length === SLAB_BYTES && this.free.length < FREE_SLABS) this.free.push(slab);
  }
}

/** `disk` (version 2): many events per record, binary, CRC-32 checked. */
export const diskV2Format: RecordFormat = {
  version: 2,
  maxEvents: 1000,
  maxBytes: 256 * 1024,
  createBuilder: () => new BinaryRecordBuilder(),
  checksum: checksumV2,
  countOf(record) {
    if (record.length < V2_HEADER || record[0] !== V2) return 0;
    const n = record.readUInt32BE(5);
    // every event takes at least 4 bytes: a larger count is a damaged header
    return n * 4 <= record.length - V2_HEADER ? n : 0;
  },
  decode(record) {
    if (record.length < V2_HEADER) throw new DecodeError(`record of ${record.length} bytes is shorter than its header`);
    if (record[0] !== V2) throw new DecodeError(`unknown record version ${record[0]}`);
    const sum = record.readUInt32BE(1);
    if (crc32(record.subarray(5)) !== sum) throw new DecodeError('checksum mismatch');
    const n = record.readUInt32BE(5);
    const r = new ByteReader(record, V2_HEADER);
    const out: Event[] = new Array(n);
    let prev: Event | undefined;
    const names: FieldNames = { names: undefined };
    for (let i = 0; i < n; i++) prev = out[i] = readEvent(r, prev, names);
    if (r.pos !== record.length) throw new DecodeError(`${record.length - r.pos} trailing bytes`);
    return out;
  },
};

/** Where a sink's store lives: `<data_dir>/buffer/v<version>/<sink id>` (the id made path-safe). */
export function diskBufferPath(dataDir: string, version: 1 | 2, sinkId: string): string {
  let name = encodeURIComponent(sinkId);
  if (name === '.' || name === '..') name = name.replace(/\./g, '%2E');
  return join(dataDir, 'buffer', `v${version}`, name);
}

/** What {@link DiskBuffer.open} needs; {@link createBuffer} in ./index.ts fills it from the sink config. */
export interface DiskBufferOptions {
  /** Directory of the store (see {@link diskBufferPath}). */
  readonly dir: string;
  /** Sink id, for errors and logs. */
  readonly sinkId: string;
  /** `buffer.max_size` in bytes; the schema enforces the spec minimum, tests use less. */
  readonly maxSize: number;
  readonly whenFull: WhenFull;
  readonly metrics: BufferMetrics;
  /** component_errors_total{error_type="decode_failed",stage="receiving"}. */
  readonly decodeErrors: Counter;
  /** component_errors_total{error_type="write_failed",stage="sending"}. */
  readonly writeErrors: Counter;
  readonly log: Logger;
  /** Default {@link diskV2Format}. */
  readonly format?: RecordFormat;
  /** 500 ms, Vector's disk buffer sync interval. */
  readonly syncIntervalMs?: number;
}

/** What a record adds to `buffer_byte_size` and the `max_size` count until it is deleted. */
interface StoredSize {
  stored: number;
}

/** A record's write; `settled` once its sink was done with it before the write began (then skipped). */
interface PutOp extends StoredSize {
  readonly type: 'put';
  readonly key: Buffer;
  /** The encoded record; undefined until its write begins when it was sealed unencoded. */
  value: Buffer | undefined;
  /** The events of a record sealed unencoded, until it is encoded or settled. */
  events: Event[] | undefined;
  readonly seq: number;
  settled?: boolean;
  /** The in-memory tail holds its events: the reader takes them from there, never from the disk. */
  held?: boolean;
}
type Op = PutOp | { type: 'del'; key: Buffer };

interface SealedAcks {
  readonly seq: number;
  readonly notifiers: BatchNotifier[];
}

/** A sealed record still held in memory, so a reader that keeps up skips the disk read. */
interface TailRecord {
  readonly seq: number;
  readonly key: Buffer;
  readonly events: Event[];
  /** What the record counted when pushed (tail room, sent bytes). */
  readonly bytes: number;
  /** Its write: what it counts in the size gauge changes when it is encoded. */
  readonly put: PutOp;
  /** The events' sizes ({@link batchSize}) when the pushes that filled the record said them. */
  readonly eventBytes: number | undefined;
}

/** A record read from disk whose events are being handed out. */
interface ReadRecord {
  readonly events: Event[];
  /** Bytes counted as sent, apportioned to its events. */
  readonly bytes: number;
  /** As {@link TailRecord.eventBytes}; undefined for records read from disk. */
  readonly eventBytes: number | undefined;
  readonly notifier: BatchNotifier;
  next: number;
  /** Bytes already counted as sent. */
  sentBytes: number;
}

/** One byte above every 8-byte sequence key (sequences stay below 2^53): the sync marker. */
const SYNC_KEY = Buffer.from([0xff]);
const EMPTY = Buffer.alloc(0);
/*
 * What the buffer holds in memory beside the store, kept to a few hundred KiB each. Larger bounds
 * (4 MiB read-ahead, tail and deferred events, 1 MiB writes, 8 MiB backlog) let a source outrun the
 * disk by megabytes: the backlog went to the store, was read back and decoded, and the process held
 * tens of MiB more in its heap and in the malloc arenas of LevelDB's threads (`socket -> remap ->
 * http` behind a disk buffer: 206-212 MiB peak RSS at 19-20 MiB/s, 700 MB written; with these
 * bounds 139-141 MiB at 35 MiB/s, 120-140 MB written; docs/memory.md "Disk buffers").
 */
/** Decoded records kept ahead of the reader, at most (beyond one pull's worth of events). */
const READ_AHEAD_BYTES = 512 * 1024;
/** Encoded bytes of sealed records kept in memory for the reader (beyond that it reads the disk). */
export const TAIL_BYTES = 512 * 1024;
/** One db.batch() carries at most this many record bytes or operations (bounded native copies). */
const WRITE_BATCH_BYTES = 128 * 1024;
const WRITE_BATCH_OPS = 4096;
/** Encoded bytes waiting for or in a write at most, under `block`: a slow disk pushes back too. */
const WRITE_BACKLOG_BYTES = 1024 * 1024;
/** Event bytes of records waiting unencoded at most; beyond, pushes encode at once (module comment). */
export const DEFER_BYTES = 512 * 1024;

/**
 * LevelDB's memory, kept small: each record is read back once, in key order, so a block cache
 * saves nothing; a smaller memtable and fewer open (memory-mapped) tables bound what the store
 * holds in native memory (the defaults, 4 MiB + 8 MiB + 1,000 tables, kept a busy buffer's process
 * 35 MiB larger) at the cost of more, smaller compactions.
 */
const STORE_OPTIONS = { writeBufferSize: 1024 * 1024, cacheSize: 1024 * 1024, maxOpenFiles: 100 };

/** 8-byte big-endian key of a sequence number. */
export function seqKey(seq: number): Buffer {
  const k = Buffer.allocUnsafe(8);
  k.writeUInt32BE(Math.floor(seq / 0x1_0000_0000), 0);
  k.writeUInt32BE(seq >>> 0, 4);
  return k;
}

/** Sequence number of an 8-byte key. */
export function keySeq(k: Buffer): number {
  return k.readUInt32BE(0) * 0x1_0000_0000 + k.readUInt32BE(4);
}

/** The `disk` and `disk_v1` edge buffers: see the module comment. Create with {@link DiskBuffer.open}. */
export class DiskBuffer implements EdgeBuffer {
  private readonly ctl = new GateController(true);
  readonly gate = this.ctl;
  private readonly format: RecordFormat;
  private readonly builder: RecordBuilder;
  private readonly timer: NodeJS.Timeout;

  // write side
  private writeSeq = 0;
  private writtenSeq = 0;
  private ops: Op[] = [];
  /** Puts still in `ops` whose records carry no source acknowledgement, by sequence. */
  private pendingPuts = new Map<number, PutOp>();
  /** Source notifiers of the events pushed into the open record. */
  private openAcks: BatchNotifier[] = [];
  /** Source notifiers by sealed record, settled once a synced write holds the record. */
  private sealedAcks: SealedAcks[] = [];
  private writing = false;
  private flushScheduled = false;
  private syncDue = false;
  private unsynced = false;
  private afterWrite: (() => void)[] = [];
  private unwrittenBytes = 0;
  private inFlightBytes = 0;

  /** Events of the open record, for the tail, and their sizes while every push into it said them. */
  private openEvents: Event[] = [];
  private openEventBytes: number | undefined = 0;
  /** The open record is not encoded: its events wait for the write; `openSize` is their size. */
  private openDeferred = false;
  private openSize = 0;
  /** Event bytes of sealed records waiting unencoded. */
  private deferredBytes = 0;
  private tail: TailRecord[] = [];
  private tailHead = 0;
  private tailBytes = 0;

  // read side
  private readSeq = 0;
  private queue: ReadRecord[] = [];
  private queueHead = 0;
  private fetching: Promise<void> | undefined = undefined;
  private waiter: ((b: EventBatch | undefined) => void) | undefined = undefined;
  private waiterMax = 0;

  private storedEvents = 0;
  private storedBytes = 0;
  private unread = 0;
  private closed = false;
  /** Set when dispose() starts: no new reads, the store is about to close. */
  private disposing = false;
  private disposed = false;
  private disposal: Promise<void> | undefined = undefined;

  private constructor(
    private readonly db: ClassicLevel<Buffer, Buffer>,
    private readonly opts: DiskBufferOptions,
  ) {
    this.format = opts.format ?? diskV2Format;
    this.builder = this.format.createBuilder();
    this.timer = setInterval(() => this.onSyncTick(), opts.syncIntervalMs ?? 500);
    this.timer.unref();
  }

  /**
   * Opens (creating if missing) the store and counts what a previous run left in it. Rejects with
   * an Error naming the directory and the sink when the directory cannot be created or opened.
   */
  static async open(opts: DiskBufferOptions): Promise<DiskBuffer> {
    const fail = (err: unknown): Error =>
      new Error(
        `disk buffer of sink "${opts.sinkId}": cannot open ${opts.dir}: ${(err as Error).message ?? err}` +
          ((err as { cause?: Error }).cause ? ` (${(err as { cause: Error }).cause.message})` : ''),
        { cause: err },
      );
    try {
      await mkdir(opts.dir, { recursive: true });
    } catch (err) {
      throw fail(err);
    }
    const db = new (classicLevel().ClassicLevel)<Buffer, Buffer>(opts.dir, { keyEncoding: 'buffer', valueEncoding: 'buffer', ...STORE_OPTIONS });
    try {
      await db.open();
    } catch (err) {
      throw fail(err);
    }
    const buf = new DiskBuffer(db, opts);
    try {
      await buf.scan();
    } catch (err) {
      await buf.dispose().catch(() => undefined);
      throw fail(err);
    }
    return buf;
  }

  /** Restores counters and cursors from the records on disk. */
  private async scan(): Promise<void> {
    const it = this.db.iterator({ lt: SYNC_KEY });
    let first = -1;
    let last = -1;
    let events = 0;
    let bytes = 0;
    try {
      for (;;) {
        const entries = await it.nextv(1000);
        if (entries.length === 0) break;
        for (const [k, v] of entries) {
          if (k.length !== 8) continue;
          const seq = keySeq(k);
          if (first < 0) first = seq;
          last = seq;
          events += this.format.countOf(v);
          bytes += v.length;
        }
      }
    } finally {
      await it.close();
    }
    if (first >= 0) {
      this.readSeq = first;
      this.writeSeq = this.writtenSeq = last + 1;
    }
    this.storedEvents = this.unread = events;
    this.storedBytes = bytes;
    this.opts.metrics.events.add(events);
    this.opts.metrics.bytes.add(bytes);
    if (events > 0) this.opts.log.info('Disk buffer holds events from a previous run.', { path: this.opts.dir, events, bytes });
    this.updateGate();
  }

  /** Events not yet handed to the reader. */
  get length(): number {
    return this.unread;
  }

  push(events: EventBatch, eventBytes?: number): void {
    if (events.length === 0) return;
    if (this.disposed) {
      settleAll(events, 'errored');
      return;
    }
    const size = this.deferrable(events, eventBytes);
    if (size !== undefined) this.pushUnencoded(events, size);
    else this.pushEncoded(events, eventBytes);
  }

  /** The batch's size when it may wait unencoded for its write (module comment), else undefined. */
  private deferrable(events: EventBatch, eventBytes: number | undefined): number | undefined {
    if (this.opts.whenFull === 'drop_newest' || this.deferredBytes >= DEFER_BYTES) return undefined;
    for (let i = 0; i < events.length; i++) if (events[i]!.meta.notifiers) return undefined;
    if (eventBytes !== undefined) return eventBytes;
    try {
      return batchSize(events);
    } catch {
      return undefined; // a value the model does not allow (a cycle): the encoder says which event
    }
  }

  /** Adds events to the open record without encoding them; `size` is their {@link batchSize}. */
  private pushUnencoded(events: EventBatch, size: number): void {
    if (this.openEvents.length > 0 && !this.openDeferred) this.seal();
    this.openDeferred = true;
    const { maxEvents, maxBytes } = this.format;
    const n = events.length;
    let split = false;
    let counted = 0;
    for (let i = 0; i < n; i++) {
      this.openEvents.push(events[i]!);
      // integer shares of the batch's size, summing to it exactly
      const upTo = i === n - 1 ? size : Math.floor((size * (i + 1)) / n);
      this.openSize += upTo - counted;
      counted = upTo;
      if (this.openEvents.length >= maxEvents || this.openSize >= maxBytes) {
        this.openEventBytes = undefined;
        this.seal();
        split = true;
      }
    }
    // the batch's size serves the sink's counters when the batch is one whole part of a record
    if (!split && this.openEventBytes !== undefined) this.openEventBytes += size;
    else if (this.openEvents.length > 0) this.openEventBytes = undefined;
    this.deferredBytes += size;
    this.accepted(n, size);
  }

  /** Encodes each event into the open record now. */
  private pushEncoded(events: EventBatch, eventBytes: number | undefined): void {
    if (this.openEvents.length > 0 && this.openDeferred) this.seal();
    this.openDeferred = false;
    const { metrics, maxSize } = this.opts;
    const dropping = this.opts.whenFull === 'drop_newest';
    const b = this.builder;
    let accepted = 0;
    let acceptedBytes = 0;
    /** A record was sealed with part of this batch: its events' sizes are not known. */
    let split = false;
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      const before = b.bytes;
      try {
        b.append(e);
      } catch (err) {
        // not a value the model allows (a cycle, a bigint): this event cannot be stored
        this.opts.writeErrors.add(1);
        this.opts.log.error('Event cannot be encoded for the disk buffer; dropped.', { path: this.opts.dir, error: err instanceof Error ? err.message : String(err) });
        settleAll([e], 'rejected');
        continue;
      }
      const added = b.bytes - before;
      if (dropping && this.storedBytes + acceptedBytes + added > maxSize) {
        b.undo();
        const dropped = events.slice(i);
        metrics.discarded.add(dropped.length);
        // drop_newest loses the event; its sources learn it was not delivered
        settleAll(dropped, 'errored');
        break;
      }
      acceptedBytes += added;
      accepted++;
      this.openEvents.push(e);
      const ns = e.meta.notifiers;
      if (ns) {
        e.meta.notifiers = undefined;
        for (let j = 0; j < ns.length; j++) this.openAcks.push(ns[j]!);
      }
      if (b.count >= this.format.maxEvents || b.bytes >= this.format.maxBytes) {
        this.openEventBytes = undefined;
        this.seal();
        split = true;
      }
    }
    // the pushed batch's size serves the sink's counters when the batch is one whole part of a record
    if (!split && accepted === events.length && eventBytes !== undefined && this.openEventBytes !== undefined) this.openEventBytes += eventBytes;
    else this.openEventBytes = undefined;
    if (accepted > 0) this.accepted(accepted, acceptedBytes);
  }

  /** Counts what a push added (`bytes` as the size gauge counts it) and lets it move on. */
  private accepted(events: number, bytes: number): void {
    const { metrics } = this.opts;
    this.unwrittenBytes += bytes;
    this.storedBytes += bytes;
    this.storedEvents += events;
    this.unread += events;
    metrics.receivedEvents.add(events);
    metrics.receivedBytes.add(bytes);
    metrics.events.add(events);
    metrics.bytes.add(bytes);
    this.updateGate();
    // a waiting reader takes what was pushed now, from memory: it does not fall behind the tail
    // (and read it back from disk), and what it settles before the write begins is never written
    if (this.waiter && this.openEvents.length > 0) this.seal();
    this.scheduleFlush();
    this.wake();
  }

  private seal(): void {
    const seq = this.writeSeq++;
    const key = seqKey(seq);
    const events = this.openEvents;
    const eventBytes = this.openEventBytes;
    // an encoded record is checksummed when its write begins; an unencoded one is encoded then
    const value = this.openDeferred ? undefined : this.builder.seal(false);
    const stored = value ? value.length : this.openSize;
    this.openEvents = [];
    this.openEventBytes = 0;
    this.openSize = 0;
    const put: PutOp = { type: 'put', key, value, events: value ? undefined : events, seq, stored };
    this.ops.push(put);
    if (this.openAcks.length > 0) {
      this.sealedAcks.push({ seq, notifiers: this.openAcks });
      this.openAcks = [];
    } else this.pendingPuts.set(seq, put);
    if (this.tailBytes + stored <= TAIL_BYTES) {
      this.tail.push({ seq, key, events, bytes: stored, put, eventBytes });
      this.tailBytes += stored;
      put.held = true;
    }
  }

  /**
   * Encodes a record sealed unencoded, as its write begins; its size in the gauge becomes the
   * encoded one. An event that cannot be encoded is left out: the sink still gets it when the tail
   * holds the record; otherwise the reader will read the record from disk, so it is lost (counted
   * and logged; it carries no acknowledgement, or it would have been encoded at its push).
   */
  private encode(put: PutOp): void {
    const events = put.events!;
    const b = this.builder; // empty: flush() sealed the open record first
    let lost = 0;
    for (let i = 0; i < events.length; i++) {
      try {
        b.append(events[i]!);
      } catch (err) {
        lost++;
        this.opts.writeErrors.add(1);
        this.opts.log.error(put.held ? 'Event cannot be encoded for the disk buffer; delivered without being stored.' : 'Event cannot be encoded for the disk buffer; dropped.', {
          path: this.opts.dir,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
    put.events = undefined;
    this.deferredBytes -= put.stored;
    if (lost > 0 && !put.held) this.forget(lost, 0, lost);
    if (b.count === 0) {
      // nothing of it can be stored: no write
      put.settled = true;
      if (!put.held) {
        // and no reader will settle it: it leaves the counts now
        this.pendingPuts.delete(put.seq);
        this.unwrittenBytes -= put.stored;
        this.forget(0, put.stored, 0);
      }
      return;
    }
    const value = b.seal(true);
    const delta = value.length - put.stored;
    put.value = value;
    put.stored = value.length;
    this.storedBytes += delta;
    this.unwrittenBytes += delta;
    this.opts.metrics.bytes.add(delta);
  }

  private updateGate(): void {
    if (this.opts.whenFull !== 'block') return;
    this.ctl.set(this.closed || (this.storedBytes < this.opts.maxSize && this.unwrittenBytes + this.inFlightBytes < WRITE_BACKLOG_BYTES));
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.writing || this.disposed) return;
    this.flushScheduled = true;
    // a write waits for the current turn to finish: a reader woken by this push settles what it
    // took first, and that record is then never written; sources waiting for acks do not wait
    if (this.sealedAcks.length > 0 || this.openAcks.length > 0 || this.closed) queueMicrotask(() => this.flush());
    else setImmediate(() => this.flush());
  }

  private onSyncTick(): void {
    if (this.unsynced || this.ops.length > 0 || this.openEvents.length > 0) {
      this.syncDue = true;
      this.scheduleFlush();
    }
  }

  /** Writes what is pending (up to one batch's worth); at most one batch in flight. */
  private flush(): void {
    this.flushScheduled = false;
    if (this.writing || this.disposed) return;
    if (this.openEvents.length > 0) {
      this.seal();
      this.wake(); // a waiting reader may take the new record from the tail before it is written
    }
    // a batch ends after WRITE_BATCH_BYTES of records or WRITE_BATCH_OPS operations
    let n = 0;
    let bytes = 0;
    let upTo = this.writtenSeq;
    const all = this.ops;
    let ops: Op[] = [];
    while (n < all.length && ops.length < WRITE_BATCH_OPS && bytes < WRITE_BATCH_BYTES) {
      const op = all[n++]!;
      if (op.type === 'put') {
        upTo = op.seq + 1;
        if (op.settled) continue; // its sink was done with it first: nothing to keep
        if (op.value === undefined) {
          this.encode(op);
          if (op.settled) continue;
        } else this.format.checksum?.(op.value);
        this.pendingPuts.delete(op.seq);
        bytes += op.value!.length;
      }
      ops.push(op);
    }
    if (n === all.length) {
      this.ops = [];
      upTo = this.writeSeq;
    } else this.ops = all.slice(n);
    const sealed = this.sealedAcks;
    let acked = 0;
    while (acked < sealed.length && sealed[acked]!.seq < upTo) acked++;
    // sources waiting for an acknowledgement are released after one fsync, not the next timer tick
    const sync = this.syncDue || acked > 0;
    if (ops.length === 0) {
      if (!sync || !this.unsynced) {
        this.writtenSeq = upTo;
        this.syncDue = false;
        this.notifyWritten();
        return;
      }
      ops = [{ type: 'put', key: SYNC_KEY, value: EMPTY, events: undefined, seq: -1, stored: 0 }];
    }
    const acks = acked > 0 ? sealed.splice(0, acked) : undefined;
    this.inFlightBytes = bytes;
    this.unwrittenBytes -= bytes;
    this.writing = true;
    this.db.batch(ops, { sync }).then(
      () => {
        this.writtenSeq = upTo;
        if (sync) {
          this.unsynced = false;
          this.syncDue = false;
        } else this.unsynced = true;
        if (acks) for (const a of acks) for (const x of a.notifiers) x.settle('delivered');
        this.released(ops);
        this.afterBatch();
      },
      (err: unknown) => {
        this.writtenSeq = upTo;
        this.writeFailed(ops, acks, err);
        this.released(ops);
        this.afterBatch();
      },
    );
  }

  /** A write is over: its records' bytes may be reused. */
  private released(ops: Op[]): void {
    const b = this.builder;
    if (!b.release) return;
    for (const op of ops) if (op.type === 'put' && op.seq >= 0) b.release(op.value!);
  }

  private afterBatch(): void {
    this.writing = false;
    this.inFlightBytes = 0;
    this.updateGate();
    if (this.ops.length > 0 || this.openEvents.length > 0 || (this.syncDue && this.unsynced)) this.scheduleFlush();
    this.notifyWritten();
    this.wake();
  }

  private notifyWritten(): void {
    const ws = this.afterWrite;
    if (ws.length === 0) return;
    this.afterWrite = [];
    for (const w of ws) w();
  }

  /** Records of a failed write are lost; deletes of a failed write replay after a restart. */
  private writeFailed(ops: Op[], acks: SealedAcks[] | undefined, err: unknown): void {
    let events = 0;
    let bytes = 0;
    const cached = new Set<number>();
    for (let i = this.tailHead; i < this.tail.length; i++) cached.add(this.tail[i]!.seq);
    for (const op of ops) {
      if (op.type !== 'put' || op.key.length !== 8) continue;
      const seq = keySeq(op.key);
      // taken from the tail already, or still in it: delivered from memory, only durability is lost
      if (seq < this.readSeq || cached.has(seq)) continue;
      events += this.format.countOf(op.value!);
      bytes += op.stored;
    }
    this.opts.writeErrors.add(1);
    this.opts.log.error('Disk buffer write failed.', { path: this.opts.dir, events_lost: events, error: err });
    if (acks) for (const a of acks) for (const x of a.notifiers) x.settle('errored');
    this.forget(events, bytes, events);
  }

  /** Removes events from the counters (deleted, lost or damaged). */
  private forget(events: number, bytes: number, unread: number): void {
    this.storedEvents -= events;
    this.storedBytes -= bytes;
    this.unread = Math.max(0, this.unread - unread);
    this.opts.metrics.events.add(-events);
    this.opts.metrics.bytes.add(-bytes);
    this.updateGate();
  }

  pull(max: number): Promise<EventBatch | undefined> {
    if (this.queueHead < this.queue.length) return Promise.resolve(this.take(max));
    if (this.disposing) return Promise.resolve(undefined);
    if (this.takeTail(max)) return Promise.resolve(this.take(max));
    if (this.readSeq < this.writtenSeq) return this.fetch(max).then(() => this.pull(max));
    if (this.closed && this.idle()) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiter = resolve;
      this.waiterMax = max;
    });
  }

  /** Nothing pending on the write side that the reader could still receive. */
  private idle(): boolean {
    return !this.writing && this.ops.length === 0 && this.openEvents.length === 0;
  }

  /** A write landed (or the buffer closed): a waiting pull tries again. */
  private wake(): void {
    const w = this.waiter;
    if (!w) return;
    if (this.readSeq < this.writtenSeq || this.tailReady() || this.disposing || (this.closed && this.idle())) {
      this.waiter = undefined;
      this.pull(this.waiterMax).then(w, () => w(undefined));
    }
  }

  /** The next record to read is in the tail. */
  private tailReady(): boolean {
    while (this.tailHead < this.tail.length && this.tail[this.tailHead]!.seq < this.readSeq) this.dropTailHead(); // read from disk meanwhile
    return this.tailHead < this.tail.length && this.tail[this.tailHead]!.seq === this.readSeq;
  }

  private dropTailHead(): void {
    this.tailBytes -= this.tail[this.tailHead]!.bytes;
    this.tail[this.tailHead++] = undefined as unknown as TailRecord;
    if (this.tailHead === this.tail.length) {
      this.tail = [];
      this.tailHead = 0;
    } else if (this.tailHead >= 1024 && this.tailHead * 2 >= this.tail.length) {
      this.tail = this.tail.slice(this.tailHead);
      this.tailHead = 0;
    }
  }

  /** Moves records from the tail to the read queue while they are next in order; false if none. */
  private takeTail(max: number): boolean {
    let moved = 0;
    while (moved < max && this.tailReady()) {
      const t = this.tail[this.tailHead]!;
      this.dropTailHead();
      this.readSeq = t.seq + 1;
      this.enqueue(t.key, t.events, t.bytes, t.eventBytes, t.put);
      moved += t.events.length;
    }
    return moved > 0;
  }

  private fetch(want: number): Promise<void> {
    this.fetching ??= this.readRecords(want).finally(() => {
      this.fetching = undefined;
    });
    return this.fetching;
  }

  /** Reads records from the cursor until `want` events or the read-ahead limit. */
  private async readRecords(want: number): Promise<void> {
    let end = this.writtenSeq;
    // stop where the tail takes over: what it holds is handed out without a read and a decode
    this.tailReady(); // drops what was read from disk meanwhile
    if (this.tailHead < this.tail.length) end = Math.min(end, this.tail[this.tailHead]!.seq);
    const it = this.db.iterator({ gte: seqKey(this.readSeq), lt: seqKey(end) });
    let events = 0;
    let bytes = 0;
    try {
      for (;;) {
        const entries = await it.nextv(this.format.maxEvents === 1 ? Math.min(want, 1000) : 16);
        if (entries.length === 0) {
          this.readSeq = end;
          break;
        }
        for (const [k, v] of entries) {
          const seq = keySeq(k);
          this.readSeq = seq + 1;
          const n = this.accept(k, v, seq);
          events += n;
          bytes += v.length;
        }
        if (events >= want || bytes >= READ_AHEAD_BYTES) break;
      }
    } finally {
      await it.close();
    }
    if (this.queueHead > 0 && this.queueHead * 2 >= this.queue.length) {
      this.queue = this.queue.slice(this.queueHead);
      this.queueHead = 0;
    }
  }

  /** Decodes a record into the read queue, or skips it when damaged; returns its event count. */
  private accept(key: Buffer, value: Buffer, seq: number): number {
    let events: Event[];
    try {
      events = this.format.decode(value);
    } catch (err) {
      const n = this.format.countOf(value);
      this.opts.decodeErrors.add(1);
      this.opts.log.error('Skipped a damaged disk buffer record.', {
        path: this.opts.dir,
        seq,
        bytes: value.length,
        events: n,
        error: err instanceof Error ? err.message : String(err),
      });
      this.ops.push({ type: 'del', key });
      this.forget(n, value.length, n);
      this.scheduleFlush();
      return 0;
    }
    if (events.length === 0) {
      this.ops.push({ type: 'del', key });
      this.forget(0, value.length, 0);
      this.scheduleFlush();
      return 0;
    }
    this.enqueue(key, events, value.length, undefined, { stored: value.length });
    return events.length;
  }

  /** Queues a record's events for hand-out; one notifier per record deletes it once all settled. */
  private enqueue(key: Buffer, events: Event[], bytes: number, eventBytes: number | undefined, size: StoredSize): void {
    const n = events.length;
    const notifier = new BatchNotifier(() => this.recordDone(key, n, size));
    notifier.retain(n);
    this.queue.push({ events, bytes, eventBytes, notifier, next: 0, sentBytes: 0 });
  }

  /** Every event of a record settled: delete it, or never write it if its write has not begun. */
  private recordDone(key: Buffer, events: number, size: StoredSize): void {
    if (this.disposed) return; // still on disk: replayed after the restart
    const put = this.pendingPuts.size > 0 ? this.pendingPuts.get(keySeq(key)) : undefined;
    if (put) {
      // a reader ahead of the write: it would be followed at once by its delete
      put.settled = true;
      this.pendingPuts.delete(put.seq);
      this.unwrittenBytes -= put.stored;
      if (put.value) this.builder.release?.(put.value);
      else if (put.events) {
        // never encoded (one whose events all failed to encode was, and let them go then)
        put.events = undefined;
        this.deferredBytes -= put.stored;
      }
      this.forget(events, put.stored, 0);
      return;
    }
    this.ops.push({ type: 'del', key });
    this.forget(events, size.stored, 0);
    this.scheduleFlush();
  }

  /** Hands out up to `max` events from the read queue, each holding its record's notifier. */
  private take(max: number): EventBatch {
    const out: Event[] = [];
    let bytes = 0;
    /** The events' sizes, while every record was taken whole with its size known. */
    let sized: number | undefined = 0;
    while (out.length < max && this.queueHead < this.queue.length) {
      const rec = this.queue[this.queueHead]!;
      const total = rec.events.length;
      const k = Math.min(total - rec.next, max - out.length);
      sized = sized !== undefined && rec.eventBytes !== undefined && rec.next === 0 && k === total ? sized + rec.eventBytes : undefined;
      const ns = [rec.notifier]; // shared: EventMetadata never mutates a notifier list in place
      for (let i = rec.next; i < rec.next + k; i++) {
        const e = rec.events[i]!;
        e.meta.notifiers = ns;
        out.push(e);
      }
      rec.next += k;
      // apportion record bytes to events; the last slice takes the remainder
      const share = rec.next === total ? rec.bytes - rec.sentBytes : Math.floor((rec.bytes * k) / total);
      rec.sentBytes += share;
      bytes += share;
      if (rec.next === total) this.queueHead++;
    }
    if (this.queueHead === this.queue.length) {
      this.queue = []; // drops the handed-out records (their events live on in the sink)
      this.queueHead = 0;
    }
    this.unread = Math.max(0, this.unread - out.length);
    this.opts.metrics.sentEvents.add(out.length);
    this.opts.metrics.sentBytes.add(bytes);
    // sized once here for the sink's received and sent counters (the store's bytes are encoded ones)
    rememberBatchSize(out, sized ?? batchSize(out));
    return out;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.ctl.open(); // nothing more will be pushed: never hold producers back on a closed buffer
    this.scheduleFlush();
    this.wake();
  }

  release(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.(undefined);
  }

  /** Writes and syncs everything pending, then closes the store. Unsettled records stay on disk. */
  dispose(): Promise<void> {
    this.disposal ??= this.shutdown();
    return this.disposal;
  }

  private async shutdown(): Promise<void> {
    this.disposing = true;
    this.close();
    clearInterval(this.timer);
    await this.fetching?.catch(() => undefined);
    while (!this.idle() || this.unsynced || this.sealedAcks.length > 0) {
      this.syncDue = true;
      const done = new Promise<void>((r) => this.afterWrite.push(r));
      if (!this.writing) this.flush();
      await done;
    }
    this.disposed = true;
    this.release();
    // the gauges describe this instance; a reopen counts the store again
    this.opts.metrics.events.add(-this.storedEvents);
    this.opts.metrics.bytes.add(-this.storedBytes);
    await this.db.close();
  }
}
