/**
 * The `file` source: finds the files `include` matches (again at most every
 * `glob_minimum_cooldown_ms`), reads each from its checkpoint, cuts lines and emits them in
 * batches of up to {@link BATCH_EVENTS} per file. Reading is polling on the scheduler, synchronous
 * and bounded: a pass reads at most `max_read_bytes` per file per round and
 * {@link PASS_BUDGET_BYTES} in all, and stops at the first emission after the output gate closed
 * (the next pass starts on the next turn once it opens, where reading stopped). A file with more
 * to read is read again on the next turn; only a caught-up file waits (1 ms, doubling up to
 * {@link IDLE_POLL_MS}). Positions advance through one ordered settlement per file, so with acknowledgements
 * a checkpoint never passes a line a sink has not delivered. Heading a threaded segment
 * (docs/threads.md), the source cuts each read at its last newline instead and hands each file's
 * whole lines to the segment in pieces (pieces.ts), whose workers make the events (decoder.ts).
 */
import { closeSync, fstatSync, openSync, readSync, unlinkSync } from 'node:fs';
import { type Observable, type Unsubscribable } from 'rxjs';
import type { SourceContext, ThreadedIntake } from '../../../lib/component.js';
import type { EventBatch, LogEvent } from '../../../lib/event.js';
import { whenOpen } from '../../../lib/gate.js';
import { Timestamp } from '../../../lib/value.js';
import { OrderedSettlement, type SourceOutput, nextTurn, runSource } from '../../shared/source/index.js';
import { LOCAL_HOST } from './host.js';
import { type Charset, openCharset } from './charset.js';
import { Checkpoints } from './checkpoints.js';
import type { FileSourceConfig } from './config.js';
import { type FileEvents, fileEvents } from './events.js';
import { type FingerprintOptions, TOO_SHORT, fingerprint } from './fingerprint.js';
import { type Glob, compileGlob, findFiles } from './glob.js';
import { GzipWatcher, isGzip } from './gzip.js';
import { type LineKeys, lineEvent, lineKeys } from './line-event.js';
import { LineAggregator, type MessageSink, type MultilineRules, compileMultiline } from './multiline.js';
import { PIECE_BYTES, PieceBuilder } from './pieces.js';
import { FileWatcher } from './watcher.js';

/** Longest pause between passes that found nothing to read, in milliseconds. */
export const IDLE_POLL_MS = 250;
/** Most bytes one pass reads over all files before yielding to the event loop. */
export const PASS_BUDGET_BYTES = 1 << 20;
/** Events of one file that make a batch; fewer when the file has no more to read now or the pass ends. */
export const BATCH_EVENTS = 256;
/** Least time between two checkpoint writes while running, in milliseconds. */
export const CHECKPOINT_INTERVAL_MS = 1000;

/** Builds the source; fails (as a build error) when the checkpoint folder cannot be made or read. */
export function buildFileSource(config: FileSourceConfig, ctx: SourceContext): Observable<EventBatch> {
  // as on Vector's file source: deprecated, acknowledgements are asked for by sinks
  if (config.acknowledgements.enabled !== undefined)
    ctx.log.warn('acknowledgements.enabled on the file source is deprecated and has no effect; enable acknowledgements on the sinks or globally.');
  return runSource(ctx, {}, (out) => {
    const server = new FileServer(config, ctx, out);
    server.start();
    return server;
  });
}

/**
 * ignore_checkpoints as Vector reconciles it with the deprecated start_at_beginning: true makes
 * it default to true; read_from always has its own value (default beginning), so it is unchanged.
 */
function ignoreCheckpoints(config: FileSourceConfig, ctx: SourceContext): boolean {
  if (config.start_at_beginning !== undefined) ctx.log.warn('Use of deprecated option start_at_beginning. Please use ignore_checkpoints and read_from options instead.');
  return config.ignore_checkpoints ?? config.start_at_beginning === true;
}

/** multiline, or else the deprecated message_start_indicator: both patterns, halt_before, multi_line_timeout. */
function multilineRules(config: FileSourceConfig, ctx: SourceContext): MultilineRules | undefined {
  if (config.multiline !== undefined) {
    if (config.message_start_indicator !== undefined) ctx.log.warn('message_start_indicator is ignored: multiline is set.');
    return compileMultiline(config.multiline);
  }
  const indicator = config.message_start_indicator;
  if (indicator === undefined) return undefined;
  return compileMultiline({ start_pattern: indicator, condition_pattern: indicator, mode: 'halt_before', timeout_ms: config.multi_line_timeout });
}

/** A file found by a discovery, opened and identified. */
interface Found {
  readonly path: string;
  /** Open for a file not watched yet; -1 once closed (a file watched already). */
  readonly fd: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly createdMs: number;
  readonly dev: number;
  readonly ino: number;
  readonly fingerprint: string;
  readonly gzip: boolean;
}

/** One subscription's watched files, checkpoints and poll loop. */
class FileServer {
  private readonly events: FileEvents;
  private readonly include: Glob[];
  private readonly exclude: Glob[];
  private readonly fp: FingerprintOptions;
  private readonly keys: LineKeys;
  /** Set when a threaded segment cuts the lines and makes the events (docs/threads.md). */
  private readonly threaded: ThreadedIntake | undefined;
  /** With {@link threaded}: each file's lines read in this pass, not handed over yet. */
  private readonly pieces = new Map<FileWatcher, PieceBuilder>();
  private readonly checkpoints: Checkpoints;
  private readonly watchers = new Map<string, FileWatcher>();
  private readonly multiline: MultilineRules | undefined;
  private readonly charset: Charset;
  private timer: Unsubscribable | undefined;
  private waiting: Unsubscribable | undefined;
  private lastGlobAt = Number.NEGATIVE_INFINITY;
  private lastCheckpointAt = 0;
  private isStartup = true;
  /** Files last modified before this (ms since the epoch) are read from their end (ignore_older_secs, fixed at startup). */
  private readonly ignoreBeforeMs: number | undefined;
  private stopped = false;
  private readonly ignoreCheckpoints: boolean;
  /** Scheduler time the current (or last) pass started: the read time of its lines. */
  private passAt = 0;
  /** The pause after the last pass that found nothing (see pass). */
  private idleMs = IDLE_POLL_MS;

  constructor(
    private readonly config: FileSourceConfig,
    private readonly ctx: SourceContext,
    private readonly out: SourceOutput,
  ) {
    this.events = fileEvents(ctx, config.internal_metrics.include_file_tag);
    this.include = config.include.map(compileGlob);
    this.exclude = config.exclude.map(compileGlob);
    this.charset = openCharset(config.encoding?.charset, config.line_delimiter);
    const delimiter = this.charset.delimiter;
    this.fp = {
      strategy: config.fingerprint.strategy,
      lines: config.fingerprint.lines,
      ignoredHeaderBytes: config.fingerprint.ignored_header_bytes,
      delimiter,
      maxBytes: (config.max_line_bytes + delimiter.length) * config.fingerprint.lines,
    };
    this.keys = lineKeys(config, ctx.globals.log_schema);
    this.threaded = ctx.threaded;
    this.ignoreCheckpoints = ignoreCheckpoints(config, ctx);
    this.ignoreBeforeMs = config.ignore_older_secs !== undefined ? ctx.scheduler.now() - config.ignore_older_secs * 1000 : undefined;
    this.multiline = multilineRules(config, ctx);
    const dataDir = config.data_dir ?? ctx.globals.data_dir;
    try {
      this.checkpoints = new Checkpoints(dataDir, ctx.id);
    } catch (err) {
      throw new Error(`file checkpoints in ${dataDir}: ${(err as Error).message}`);
    }
  }

  /** Runs the first pass now. */
  start(): void {
    this.schedule(0);
  }

  /** Shutdown: no further reads; open multiline messages are emitted, the positions reached are written. */
  drain(): void {
    if (this.stopped) return;
    for (const w of this.watchers.values()) this.flushMessage(w);
    this.stop();
  }

  /** Teardown: everything stops at once; the positions reached are written. */
  close(): void {
    this.stop();
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.timer?.unsubscribe();
    this.waiting?.unsubscribe();
    this.writeCheckpoints();
    for (const w of this.watchers.values()) {
      w.agg?.close();
      w.close();
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = delayMs === 0 ? nextTurn(this.ctx.scheduler, () => this.pass()) : this.ctx.scheduler.schedule(() => this.pass(), delayMs);
  }

  /** One pass: discovery when due, then reading until nothing is left, the budget is spent or the gate closes. */
  private pass(): void {
    if (this.stopped) return;
    const now = this.ctx.scheduler.now();
    this.passAt = now;
    if (now - this.lastGlobAt >= this.config.glob_minimum_cooldown_ms) {
      this.lastGlobAt = now;
      this.discover(now);
      this.isStartup = false;
    }
    let budget = PASS_BUDGET_BYTES;
    let more = true;
    while (more && budget > 0 && this.out.isOpen) {
      more = false;
      for (const w of [...this.watchers.values()]) {
        if (!this.out.isOpen) break;
        const read = this.readFile(w, now);
        budget -= read;
        if (read > 0) more = true;
        // oldest_first: a file with more to read keeps newer ones waiting
        if (this.config.oldest_first && read >= this.config.max_read_bytes) break;
      }
    }
    // the batches of files that still had data when the pass ended
    for (const w of this.watchers.values()) if (this.holdsLines(w)) this.emitBatch(w);
    if (now - this.lastCheckpointAt >= CHECKPOINT_INTERVAL_MS) {
      this.lastCheckpointAt = now;
      this.writeCheckpoints();
    }
    if (this.stopped) return;
    if (!this.out.isOpen) {
      // the gate closed mid-pass: the next pass starts when it opens, at the positions reached
      this.waiting = whenOpen(this.ctx.out).subscribe(() => this.schedule(0));
      return;
    }
    if (more) return this.schedule(0);
    // caught up: polled again after 1 ms, then twice as long each time nothing came, up to
    // IDLE_POLL_MS (Vector backs off the same way), so a writer that pauses briefly is followed
    // at once and an idle file costs a read every IDLE_POLL_MS
    this.idleMs = budget < PASS_BUDGET_BYTES ? 1 : Math.min(IDLE_POLL_MS, this.idleMs * 2);
    this.schedule(this.idleMs);
  }

  /**
   * Reads one round (at most max_read_bytes) of one file; returns the bytes read (1 after a
   * rewind). Its lines join the file's batch, emitted once it holds {@link BATCH_EVENTS} events,
   * when the file has nothing more to read now, and at the end of the pass: a batch per round
   * (about ten lines with the default max_read_bytes) cost the sinks a write each.
   */
  private readFile(w: FileWatcher, now: number): number {
    const batch = w.batch;
    // one timestamp for the events of one pass: they were read at the same moment
    const stamp = new Timestamp(Math.floor(now));
    const emit: MessageSink = (message, offset) => batch.push(this.toEvent(w.path, message, offset, stamp));
    const agg = w.agg;
    const decode = this.charset.decode;
    const onLine =
      agg === undefined
        ? (buf: Buffer, start: number, end: number, offset: number) => emit(decode(buf, start, end), offset)
        : (buf: Buffer, start: number, end: number, offset: number) => agg.push(decode(buf, start, end), offset, emit);
    const piece = this.pieces.get(w);
    // a piece holds contiguous lines: after a line discarded here the next lines start another
    const onRegion =
      piece === undefined
        ? undefined
        : (buf: Buffer, start: number, end: number, offset: number) => {
            if (piece.bytes > 0 && offset !== piece.end) this.emitBatch(w);
            piece.add(buf, start, end, offset);
          };
    const onTooLong = (bytes: number) => this.events.lineTooLong(w.path, bytes, this.config.max_line_bytes);
    let r: ReturnType<FileWatcher['read']>;
    try {
      // with a threaded segment the lines are cut in its workers: whole lines go there as read
      r = onRegion !== undefined ? w.readRegion(this.config.max_read_bytes, onRegion, onTooLong) : w.read(this.config.max_read_bytes, onLine, onTooLong);
    } catch (err) {
      this.events.fileFailed(w.path, 'reading', err as NodeJS.ErrnoException);
      // a gzip file that cannot be decompressed further is let go; lines read from it stand
      if (w instanceof GzipWatcher) this.letGo(w, 'decompression failed');
      return 0;
    }
    if (r.bytes > 0) {
      this.out.received(r.bytes);
      w.lastReadAt = now;
    }
    // a file read again from its start is read in the next round, not after the idle pause
    let progress = r.bytes;
    if (r.result === 'truncated') {
      // the lines of the old content end here
      agg?.flush(emit);
      progress = this.truncated(w) ? 1 : 0;
    } else if (!w.findable && ((r.result === 'eof' && w.atEnd) || now - w.lostAt > this.config.rotate_wait_secs * 1000)) {
      // missed by a discovery and read to its end since (or kept for rotate_wait_secs): let go,
      // with a last line its writer never finished
      if (r.result === 'eof') w.flushHeld(onRegion ?? onLine);
      agg?.flush(emit);
      this.letGo(w, r.result === 'eof' ? 'read to its end after it was no longer found' : 'rotate_wait_secs elapsed');
    }
    // a round that only advanced past a discarded line still moves the position (at the emission)
    if (r.result !== 'data' || batch.length >= BATCH_EVENTS || (piece !== undefined && piece.bytes >= PIECE_BYTES)) this.emitBatch(w);
    if (r.result === 'eof' && w.atEnd && this.config.remove_after_secs !== undefined && this.watchers.get(w.fingerprint) === w) this.removeIfDone(w, now, this.config.remove_after_secs * 1000);
    return progress;
  }

  /** Whether a file has lines read and not emitted (or handed to the segment) yet. */
  private holdsLines(w: FileWatcher): boolean {
    return w.batch.length > 0 || (this.pieces.get(w)?.bytes ?? 0) > 0;
  }

  /** Emits a file's batch (an empty one still moves its position) and starts the next; or hands its lines to the segment. */
  private emitBatch(w: FileWatcher): void {
    if (this.threaded !== undefined) {
      // one read time for the lines of one pass, as on the main thread; a file let go handed over its last piece then
      this.pieces.get(w)?.send(this.threaded, w, LOCAL_HOST, Math.floor(this.passAt), this.position(w), this.out.acknowledges);
      return;
    }
    const batch = w.batch;
    w.batch = [];
    w.settlement.emit(batch, this.position(w));
  }

  /** remove_after_secs: deletes a file read to its end, idle that long, its lines all settled. */
  private removeIfDone(w: FileWatcher, now: number, afterMs: number): void {
    if (now - w.lastReadAt < afterMs || w.settlement.pending > 0 || w.heldBytes > 0 || w.agg?.heldOffset !== undefined) return;
    try {
      unlinkSync(w.path);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code !== 'ENOENT') return this.events.fileDeleteFailed(w.path, e);
    }
    this.events.fileDeleted(w.path);
    this.letGo(w, 'deleted after remove_after_secs');
    this.checkpoints.delete(w.fingerprint);
  }

  /** Where a restart must read this file again: before an open multiline message, else after the last line. */
  private position(w: FileWatcher): number {
    return w.agg?.heldOffset ?? w.committed;
  }

  /** Emits a file's open multiline message (timed out, shutdown). */
  private flushMessage(w: FileWatcher): void {
    if (w.agg === undefined) return;
    const now = this.ctx.scheduler.now();
    const batch: EventBatch = [];
    const stamp = new Timestamp(Math.floor(now));
    w.agg.flush((message, offset) => batch.push(this.toEvent(w.path, message, offset, stamp)));
    if (batch.length > 0) w.settlement.emit(batch, this.position(w));
  }

  /**
   * A file shrank below the read position. With `checksum` a file whose first lines changed is a
   * new file: it is let go, and the next discovery finds its path under the new fingerprint (read
   * from its start). The same fingerprint (or `device_and_inode`) is read again from its start.
   */
  private truncated(w: FileWatcher): boolean {
    let now: string | typeof TOO_SHORT = TOO_SHORT;
    try {
      now = fingerprint(w.fd, fstatSync(w.fd), this.fp);
    } catch {
      // unreadable now: treated as changed
    }
    this.events.fileTruncated(w.path, w.committed);
    if (now === w.fingerprint) {
      w.rewind();
      return true;
    }
    this.letGo(w, 'truncated');
    this.lastGlobAt = Number.NEGATIVE_INFINITY;
    return false;
  }

  private letGo(w: FileWatcher, reason: string): void {
    if (this.watchers.get(w.fingerprint) !== w) return;
    // its lines read in this pass go out before it is forgotten
    if (this.holdsLines(w)) this.emitBatch(w);
    this.watchers.delete(w.fingerprint);
    this.pieces.delete(w);
    w.agg?.close();
    w.close();
    this.events.fileUnwatched(w.path, reason);
  }

  private toEvent(path: string, message: string, offset: number, stamp: Timestamp): LogEvent {
    return lineEvent(this.keys, this.ctx.id, path, LOCAL_HOST, message, offset, stamp);
  }

  /** Finds the matching files, identifies each, starts watching new ones and marks those missed. */
  private discover(now: number): void {
    const missing = this.config.ignore_not_found ? undefined : (path: string, err: NodeJS.ErrnoException) => this.events.fingerprintReadFailed(path, err);
    const paths = findFiles(this.include, this.exclude, (path, err) => this.events.fileFailed(path, 'listing', err), missing);
    const found: Found[] = [];
    for (const path of paths) {
      const f = this.identify(path);
      if (f === undefined) continue;
      // a file watched already needs no second descriptor: closed now, so a discovery holds at
      // most one per new file
      if (this.watchers.has(f.fingerprint)) {
        closeSync(f.fd);
        found.push({ ...f, fd: -1 });
      } else found.push(f);
    }
    // files found together are watched oldest first (their turn order, and oldest_first's)
    found.sort((a, b) => a.createdMs - b.createdMs);
    const seen = new Set<string>();
    for (const f of found) {
      const w = this.watchers.get(f.fingerprint);
      if (w !== undefined) {
        // a copy of a watched file at another path (a rotation by copy) is the same file
        if (!seen.has(f.fingerprint) && w.path !== f.path && !found.some((o) => o.path === w.path && o.fingerprint === w.fingerprint)) w.path = f.path;
        seen.add(f.fingerprint);
        if (f.fd >= 0) closeSync(f.fd);
        continue;
      }
      if (seen.has(f.fingerprint)) {
        if (f.fd >= 0) closeSync(f.fd);
        continue;
      }
      seen.add(f.fingerprint);
      // the same inode under a new fingerprint: its content was replaced, the old watcher is stale
      for (const old of this.watchers.values()) if (old.dev === f.dev && old.ino === f.ino && this.fp.strategy === 'checksum') this.letGo(old, 'content replaced');
      // watched when identified, let go since (its inode got new content; this path holds a copy): opened again
      const open = f.fd >= 0 ? f : this.identify(f.path);
      if (open === undefined) continue;
      if (open.fingerprint !== f.fingerprint) {
        closeSync(open.fd);
        continue;
      }
      this.watch(open, now);
    }
    for (const w of this.watchers.values()) {
      if (seen.has(w.fingerprint)) {
        w.findable = true;
      } else if (w.findable) {
        w.findable = false;
        w.lostAt = now;
      }
    }
  }

  /** Opens and fingerprints one path; undefined when it cannot be read yet or at all. */
  private identify(path: string): Found | undefined {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code !== 'ENOENT') this.events.fileFailed(path, 'opening', e);
      else if (!this.config.ignore_not_found) this.events.fingerprintReadFailed(path, e);
      return undefined;
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) {
        closeSync(fd);
        return undefined;
      }
      const head = Buffer.alloc(2);
      const gzip = isGzip(head.subarray(0, readSync(fd, head, 0, 2, 0)));
      const fp = fingerprint(fd, st, this.fp, gzip);
      if (fp === TOO_SHORT) {
        closeSync(fd);
        return undefined;
      }
      const createdMs = st.birthtimeMs > 0 ? st.birthtimeMs : st.mtimeMs;
      return { path, fd, size: st.size, mtimeMs: st.mtimeMs, createdMs, dev: st.dev, ino: st.ino, fingerprint: fp, gzip };
    } catch (err) {
      closeSync(fd);
      this.events.checksumFailed(path, err as NodeJS.ErrnoException);
      return undefined;
    }
  }

  private watch(f: Found, now: number): void {
    const saved = this.ignoreCheckpoints ? undefined : this.checkpoints.get(f.fingerprint);
    // as Vector does: a file last modified before startup minus ignore_older_secs is read from its
    // end, checkpoint or not
    const tooOld = this.ignoreBeforeMs !== undefined && f.mtimeMs < this.ignoreBeforeMs;
    const fromEnd = tooOld || (saved === undefined && this.isStartup && this.config.read_from === 'end');
    let position: number;
    // a gzip file's positions count decompressed bytes; read from its end, nothing of it is read
    if (f.gzip) position = tooOld ? Number.MAX_SAFE_INTEGER : (saved ?? (fromEnd ? Number.MAX_SAFE_INTEGER : 0));
    else if (tooOld) position = f.size;
    // a file shorter than its checkpoint is a copy taken before the last lines were read (a
    // rotation by copy): what it holds was read, so reading goes on from its end
    else if (saved !== undefined) position = Math.min(saved, f.size);
    else position = fromEnd ? f.size : 0;
    const fp = f.fingerprint;
    let w: FileWatcher | undefined;
    const settlement = new OrderedSettlement<number>(
      this.out,
      (pos) => this.advance(fp, pos),
      (status) => this.events.checkpointHeld(w?.path ?? f.path, status),
    );
    const delimiter = this.fp.delimiter;
    const watcher = new (f.gzip ? GzipWatcher : FileWatcher)(f.path, fp, f.fd, f.dev, f.ino, position, settlement, delimiter, this.config.max_line_bytes);
    w = watcher;
    watcher.lastReadAt = now;
    if (this.multiline !== undefined) watcher.agg = new LineAggregator(this.multiline, this.config.max_line_bytes, this.ctx.scheduler, () => this.flushMessage(watcher));
    this.watchers.set(fp, watcher);
    if (this.threaded !== undefined) this.pieces.set(watcher, new PieceBuilder());
    this.events.fileAdded(f.path, position, saved !== undefined && position === saved);
  }

  private advance(fingerprint: string, position: number): void {
    this.checkpoints.set(fingerprint, position, this.ctx.scheduler.now());
    // a settlement after the stop (acknowledgements arriving late) is written at once
    if (this.stopped) this.writeCheckpoints();
  }

  private writeCheckpoints(): void {
    try {
      if (this.checkpoints.write(this.ctx.scheduler.now(), (fp) => this.watchers.has(fp))) this.events.checkpointsWritten(this.watchers.size);
    } catch (err) {
      this.events.checkpointsFailed(this.checkpoints.path, err);
    }
  }
}
