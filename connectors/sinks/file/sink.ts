/**
 * The `file` sink: events appended to the file their rendered `path` names, one open descriptor
 * per path, closed after `idle_timeout_secs` without writes. Each event is encoded and held under
 * its rendered path (framed when written): a path's data is written
 * once a batch took it to {@link WRITE_AT_BYTES}, everything held once the total reaches
 * {@link HELD_MAX_BYTES} or {@link HOLD_MS} after a batch left some held, and at the end of the
 * input. Events are delivered only once their bytes were written. With gzip, each write is one
 * gzip member, so the file is a valid multi-member gzip stream after every write.
 *
 * Vector's file sink writes each event on its own (`write_all` of one encoded event to tokio's
 * buffered file, which hands it to a blocking thread) and reports it delivered then; with gzip it
 * keeps one compressor per open file, finished when the file closes. Here a thread-pool round trip
 * per event costs about twenty times the write itself (about 80 µs against 4 µs for a 200-byte
 * line, docs/performance.md), so once a template spreads a batch over more paths than it has
 * events, every event would pay one. So writes gather across batches per path, and the small ones
 * are plain `write(2)` calls on the event loop: appending a few KiB to the page cache takes a few
 * microseconds (a file system that blocks, as NFS can, blocks the loop for that long). Writes of
 * more than {@link SYNC_WRITE_MAX}, every write to a FIFO or device (which may wait for its reader)
 * and every open go through the thread pool.
 */
import { close as closeCb, fstat as fstatCb, open as openCb, write as writeCb, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { type OperatorFunction, type Subscription, firstValueFrom, timer } from 'rxjs';
import { createBatchEncoder } from '../../../lib/codecs/index.js';
import { reportEncodeFailures, serialWriter } from '../../shared/stream-writer.js';
import { SinkEvents } from '../../shared/sink-events.js';
import type { SinkContext } from '../../../lib/component.js';
import { type Delivery, EncodedLogEvent, type Event, type EventBatch, spend } from '../../../lib/event.js';
import { createCompressor } from '../../../lib/net/compression.js';
import { TemplateError } from '../../../lib/template.js';
import { fibonacciDelay } from '../../../operators/retry-fibonacci.js';
import type { FileSinkConfig } from './config.js';
import { type HeldData, HeldWrites } from './held.js';
import { makeDir } from './make-dir.js';
import { filePath } from './path.js';
import { isOutOfDescriptors, isTransientWriteError } from './write-errors.js';

const openFd = promisify(openCb);
const fstatFd = promisify(fstatCb);
const closeFd = promisify(closeCb);
const writeFd = promisify(writeCb);

/**
 * A path's held data is written at the end of the batch that took it to this size. Small on
 * purpose: data held for long outlives the young generation, and promoting it costs more than the
 * writes saved (at 100 paths, 4 KiB against 64 KiB: about 25% less CPU and 35 MiB less RSS).
 */
export const WRITE_AT_BYTES = 4 * 1024;
/** Everything held is written once the total over all paths reaches this (bounds memory). */
export const HELD_MAX_BYTES = 8 * 1024 * 1024;
/** Data held after a batch is written at most this long after (on the sink's scheduler). */
export const HOLD_MS = 100;
/** Writes up to this size are `write(2)` calls on the event loop; larger ones use the thread pool. */
const SYNC_WRITE_MAX = 256 * 1024;

interface OpenFile {
  readonly fd: number;
  /** A regular file: small writes may be synchronous. A FIFO or device may block, so never. */
  readonly regular: boolean;
  lastWriteMs: number;
}

/** Builds the sink. */
export function buildFileSink(config: FileSinkConfig, ctx: SinkContext): OperatorFunction<EventBatch, Delivery> {
  const paths = filePath(config.path, config.timezone ?? ctx.globals.timezone);
  const encoder = createBatchEncoder(config.encoding, config.framing, ctx.globals.log_schema);
  /** Workers' records are framed as they are: their bytes, then the framing's delimiter (docs/threads.md). */
  const plainRecords = encoder.framer.plain;
  /** The bytes framing adds to a record: the delimiter, when the framing has one. */
  const recordGap = encoder.framer.suffix === undefined ? 0 : 1;
  const sinkEvents = new SinkEvents(ctx);
  const compressor = createCompressor(config.compression);
  const idleMs = config.idle_timeout_secs * 1000;
  const files = new Map<string, OpenFile>();
  const held = new HeldWrites();
  const openFiles = ctx.telemetry.gauge('open_files');
  let idleTimer: Subscription | undefined;
  // idle closing and writes share one queue, so a descriptor is never closed under a write
  let io: Promise<unknown> = Promise.resolve();
  const enqueue = <T>(job: () => Promise<T>): Promise<T> => {
    const p = io.then(job);
    io = p.catch(() => undefined);
    return p;
  };

  /** Opens `path` for appending, creating its folders when missing (on the thread pool: a FIFO's open waits for its reader). */
  const openFile = async (path: string): Promise<OpenFile> => {
    let fd: number;
    try {
      fd = await openFd(path, 'a');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await makeDir(dirname(path));
      fd = await openFd(path, 'a');
    }
    const regular = await fstatFd(fd).then(
      (st) => st.isFile(),
      () => false,
    );
    const f = { fd, regular, lastWriteMs: 0 };
    files.set(path, f);
    openFiles.set(files.size);
    scheduleIdleCheck();
    return f;
  };

  const closeFile = async (path: string, f: OpenFile) => {
    files.delete(path);
    openFiles.set(files.size);
    await closeFd(f.fd);
  };

  const scheduleIdleCheck = () => {
    if (idleTimer || files.size === 0) return;
    idleTimer = ctx.scheduler.schedule(() => {
      idleTimer = undefined;
      void enqueue(async () => {
        const now = ctx.scheduler.now();
        // a file with data held is about to be written: not idle
        for (const [path, f] of [...files]) if (now - f.lastWriteMs >= idleMs && !held.has(path)) await closeFile(path, f);
        scheduleIdleCheck();
      });
    }, Math.max(100, Math.min(idleMs, 1000)));
  };

  const writeErrors = ctx.telemetry.counter('component_errors_total', { error_type: 'writer_failed', stage: 'sending' });
  /** Appends to the file of `path`; an error of the environment is retried with backoff until it clears. */
  const appendRetrying = async (path: string, data: Buffer): Promise<void> => {
    let written = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        const f = files.get(path) ?? (await openFile(path));
        if (f.regular && data.length - written <= SYNC_WRITE_MAX) while (written < data.length) written += writeSync(f.fd, data, written);
        else while (written < data.length) written += (await writeFd(f.fd, data, written)).bytesWritten;
        f.lastWriteMs = ctx.scheduler.now();
        return;
      } catch (err) {
        if (!isTransientWriteError(err)) throw err;
        writeErrors.add();
        // out of descriptors: the other open files reopen on demand
        if (isOutOfDescriptors(err)) for (const [p, f] of [...files]) if (p !== path) await closeFile(p, f).catch(() => undefined);
        const delayMs = fibonacciDelay(attempt, 100, 30_000);
        ctx.log.warn('Write failed; retrying.', { path, error: (err as Error).message, delay_ms: delayMs });
        await firstValueFrom(timer(delayMs, ctx.scheduler));
      }
    }
  };
  /** An error about one path: its events are rejected, the sink goes on. */
  const pathFailed = (path: string, err: unknown, events: number) => {
    writeErrors.add();
    ctx.log.error('Cannot write to path; events dropped.', { path: JSON.stringify(path), error: (err as Error).message, dropped: events });
  };

  /** Writes the held data of `taken`, each path once; a path's failure rejects that path's events. */
  const writeTaken = async (taken: readonly (readonly [string, HeldData])[]): Promise<Delivery[]> => {
    // a path holding only workers' records frames them from their bytes, a run of them at once
    const framed = taken.map(([, h]) => (h.pieces.length === 0 ? encoder.encode(h.events).bytes : encoder.join(h.pieces)));
    // gzip: one member per path, compressed side by side on the thread pool
    const data = compressor.algorithm === 'none' ? framed : await Promise.all(framed.map((b) => compressor.compress(b)));
    const delivered: Event[] = [];
    const rejected: Event[] = [];
    let bytes = 0;
    for (let i = 0; i < taken.length; i++) {
      const [path, h] = taken[i]!;
      const d = data[i]!;
      try {
        await appendRetrying(path, d);
      } catch (err) {
        pathFailed(path, err, h.events.length);
        for (const e of h.events) rejected.push(e);
        continue;
      }
      bytes += d.length;
      for (const e of h.events) delivered.push(e);
    }
    const out: Delivery[] = [];
    if (delivered.length > 0) out.push({ status: 'delivered', events: delivered, bytes });
    if (rejected.length > 0) out.push({ status: 'rejected', events: rejected, bytes: 0 });
    return out;
  };

  const write = async (batch: EventBatch): Promise<Delivery[]> => {
    const unrendered: Event[] = [];
    let missing: string | undefined;
    const failed: Event[] = [];
    let reason: string | undefined;
    const full: string[] = [];
    for (const e of batch) {
      if (plainRecords && e instanceof EncodedLogEvent && typeof e.rendered === 'string' && !held.get(e.rendered)?.pieces.length) {
        // a worker's record stays where the worker wrote it until its path is written, then is framed from its bytes
        const size = e.end - e.start + recordGap;
        const h = held.add(e.rendered, undefined, e, size);
        if (h.size >= WRITE_AT_BYTES && h.size - size < WRITE_AT_BYTES) full.push(e.rendered);
        continue;
      }
      let piece: string | Buffer;
      try {
        piece = encoder.piece(e);
      } catch (err) {
        // an event the codec cannot encode (an unencodable value, a hostile nesting depth) is rejected alone
        failed.push(e);
        reason ??= (err as Error).message;
        continue;
      }
      // after the encoding, as a pipeline worker renders the path of a record it wrote (docs/threads.md)
      let path: string;
      if (e instanceof EncodedLogEvent) {
        const r = e.rendered;
        if (typeof r !== 'string') {
          unrendered.push(e);
          missing ??= r?.reason ?? 'no path';
          continue;
        }
        path = r;
      } else {
        try {
          path = paths.render(e);
        } catch (err) {
          if (!(err instanceof TemplateError)) throw err;
          unrendered.push(e);
          missing ??= err.reason;
          continue;
        }
      }
      // a path's held data is records or pieces: records held before this piece become pieces
      if (held.records > 0) held.toPieces(path, encoder.piece);
      // a held event keeps only what its delivery needs (its fields go, unless someone waits on it)
      const h = held.add(path, piece, spend(e));
      if (h.size >= WRITE_AT_BYTES && h.size - piece.length < WRITE_AT_BYTES) full.push(path);
    }
    if (unrendered.length > 0) sinkEvents.templateFailed(new Error(`path template ${JSON.stringify(paths.template.text)}: ${missing}`), unrendered.length);
    reportEncodeFailures(sinkEvents, failed, reason);
    const out = full.length > 0 ? await writeTaken(full.map((path) => [path, held.take(path)!])) : [];
    if (held.size >= HELD_MAX_BYTES) for (const d of await writeTaken(held.takeAll())) out.push(d);
    const rejected = unrendered.concat(failed);
    if (rejected.length > 0) out.push({ status: 'rejected', events: rejected, bytes: 0 });
    return out;
  };

  const closeAll = async () => {
    idleTimer?.unsubscribe();
    idleTimer = undefined;
    for (const [path, f] of [...files]) await closeFile(path, f);
  };

  return serialWriter(ctx, {
    write: (batch) => enqueue(() => write(batch)),
    held: { afterMs: HOLD_MS, holds: () => held.paths > 0, writeHeld: () => enqueue(() => writeTaken(held.takeAll())) },
    flush: () => enqueue(closeAll),
    // stopped without the end of the input: what is held still reaches its files, unreported
    dispose: () =>
      void enqueue(async () => {
        await writeTaken(held.takeAll());
        await closeAll();
      }).catch(() => undefined),
  });
}
