/**
 * The `journal` source: runs `journalctl --follow --output=json` and turns its lines into batches
 * on the source skeleton. A batch opens at the first record that passes the filter and closes
 * after `batch_size` lines or 10 ms; the cursor of the last line read is saved once the batch and
 * every earlier one are in the buffers downstream, or delivered with acknowledgements (ordered
 * settlement: a saved cursor never passes an undelivered entry). journalctl is restarted with
 * backoff when it ends, from the last cursor emitted; its stdout pauses while the output gate is
 * closed, so journalctl blocks on a full pipe.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import type { Observable, Subscription } from 'rxjs';
import { createDeframer } from '../../../lib/codecs/framing.js';
import type { SourceContext } from '../../../lib/component.js';
import type { DeliveryStatus, EventBatch } from '../../../lib/event.js';
import { BatchWindow, OrderedSettlement, type PauseWhileClosed, type SourceOutput, pauseWhileClosed, runSource } from '../../shared/source/index.js';
import { type Checkpoint, openCheckpoint } from './checkpoint.js';
import { type StartAt, journalctlArgs, journalctlVersion } from './command.js';
import { type JournalSourceConfig, unitMatches } from './config.js';
import { type JournalEvents, journalEvents } from './events.js';
import { type EventKeys, parseRecord, recordFilter, recordToEvent } from './record.js';

/** A batch closes this long after its first record even when short. */
const BATCH_WINDOW_MS = 10;
const RESTART_MIN_MS = 1000;
const RESTART_MAX_MS = 30_000;

/** Builds the source; fails (as a build error) when journalctl cannot tell its version or the checkpoint folder cannot be made. */
export function buildJournalSource(config: JournalSourceConfig, ctx: SourceContext): Observable<EventBatch> {
  if (config.remap_priority) ctx.log.warn('remap_priority is deprecated; convert PRIORITY with the remap transform instead.');
  if (config.acknowledgements.enabled !== undefined)
    ctx.log.warn('acknowledgements.enabled on the journal source is deprecated and has no effect; enable acknowledgements on the sinks or globally.');
  const keep = recordFilter(unitMatches(config.include_matches, config.include_units), unitMatches(config.exclude_matches, config.exclude_units));
  const schema = ctx.globals.log_schema;
  const keys: EventKeys = { message: schema.message_key, host: schema.host_key, timestamp: schema.timestamp_key, sourceType: schema.source_type_key };
  return runSource(ctx, { lagKey: keys.timestamp }, (out) => {
    const dataDir = config.data_dir ?? ctx.globals.data_dir;
    let checkpoint: Checkpoint;
    let saved: string | undefined;
    try {
      checkpoint = openCheckpoint(dataDir, ctx.id);
      saved = checkpoint.read();
    } catch (err) {
      throw new Error(`journal checkpoint in ${dataDir}: ${(err as Error).message}`);
    }
    const reader = new JournalReader(config, ctx, out, { keep, keys, checkpoint });
    reader.begin(saved !== undefined ? { cursor: saved } : config.since_now ? 'now' : 'all');
    return reader;
  });
}

/** What the reader needs besides the options. */
interface ReaderParts {
  readonly keep: ReturnType<typeof recordFilter>;
  readonly keys: EventKeys;
  readonly checkpoint: Checkpoint;
}

/** One subscription's journalctl process, its batches and its checkpoint. */
class JournalReader {
  private readonly events: JournalEvents;
  private readonly pauser: PauseWhileClosed;
  private readonly window: BatchWindow;
  private readonly settlement: OrderedSettlement<string | undefined>;
  private start: StartAt = 'all';
  private version = 0;
  private stopped = false;
  private child: ChildProcessWithoutNullStreams | undefined;
  private restartTimer: Subscription | undefined;
  private failures = 0;
  private lastCursorRead: string | undefined;

  constructor(
    private readonly config: JournalSourceConfig,
    private readonly ctx: SourceContext,
    private readonly out: SourceOutput,
    private readonly parts: ReaderParts,
  ) {
    this.events = journalEvents(ctx);
    this.pauser = pauseWhileClosed(ctx.out);
    this.window = new BatchWindow(config.batch_size, BATCH_WINDOW_MS, ctx.scheduler, (events) => this.emit(events));
    this.settlement = new OrderedSettlement(
      out,
      (cursor) => this.save(cursor),
      (status: DeliveryStatus) => this.events.checkpointHeld(status),
    );
  }

  /** Asks journalctl its version, then runs it from `start`. */
  begin(start: StartAt): void {
    this.start = start;
    journalctlVersion(this.config.journalctl_path).then(
      (v) => {
        this.version = v;
        this.run();
      },
      (err: unknown) => this.out.fail(err),
    );
  }

  /** Shutdown: what was read is emitted, journalctl is stopped. */
  drain(): void {
    this.stopped = true;
    this.window.flush();
    this.child?.kill('SIGTERM');
  }

  /** Teardown: everything stops at once. */
  close(): void {
    this.stopped = true;
    this.window.close();
    this.restartTimer?.unsubscribe();
    this.pauser.close();
    this.child?.kill('SIGTERM');
  }

  private emit(events: EventBatch): void {
    const cursor = this.lastCursorRead;
    // a restart of journalctl resumes after what was emitted, not after what was saved
    if (cursor !== undefined) this.start = { cursor };
    this.settlement.emit(events, cursor);
    if (this.child) this.pauser.pauseIfClosed(this.child.stdout);
  }

  private save(cursor: string | undefined): void {
    if (cursor === undefined) return;
    try {
      this.parts.checkpoint.save(cursor);
    } catch (err) {
      this.events.checkpointFailed(this.parts.checkpoint.path, err);
    }
  }

  private handleLine(line: Buffer): void {
    if (line.length === 0) return;
    // invalid UTF-8 becomes U+FFFD (lossy), as the journal source promises
    const text = line.toString('utf8');
    // --show-cursor's trailer line, printed when journalctl exits
    if (text.startsWith('-- cursor: ')) return;
    const r = parseRecord(text);
    if (typeof r === 'string') {
      this.events.invalidRecord(text, r, line.length);
      return this.window.skip();
    }
    this.failures = 0;
    if (r.cursor !== undefined) this.lastCursorRead = r.cursor;
    if (!this.parts.keep(r.fields)) return this.window.skip();
    this.window.push(recordToEvent(r, this.parts.keys, this.config.remap_priority, this.ctx.id));
  }

  private run(): void {
    this.restartTimer = undefined;
    if (this.stopped) return;
    const args = journalctlArgs(this.config, this.version, this.start);
    const proc = spawn(this.config.journalctl_path, args, { stdio: ['ignore', 'pipe', 'pipe'] }) as unknown as ChildProcessWithoutNullStreams;
    this.child = proc;
    const lines = createDeframer({ method: 'newline_delimited' }, { onDiscard: (_reason, bytes) => this.events.invalidRecord('', 'record too long', bytes) });
    const onLine = (buf: Buffer, start: number, end: number) => this.handleLine(buf.subarray(start, end));
    let ended = false;
    const end = (reason: string, failed: boolean) => {
      if (ended) return;
      ended = true;
      this.pauser.forget(proc.stdout);
      if (this.child === proc) this.child = undefined;
      // records read so far are whole: send them before journalctl starts again
      this.window.flush();
      this.restartLater(reason, failed);
    };
    proc.stdout.on('data', (chunk: Buffer) => {
      this.out.received(chunk.length);
      lines.push(chunk, onLine);
    });
    forwardStderr(proc, (line) => this.events.journalctlStderr(line));
    proc.on('error', (err) => end(`could not run ${this.config.journalctl_path}: ${err.message}`, true));
    proc.on('close', (code, signal) => end(`journalctl exited (${signal ?? `code ${code}`})`, code !== 0));
  }

  private restartLater(reason: string, failed: boolean): void {
    if (this.stopped) return;
    const delay = Math.min(RESTART_MAX_MS, RESTART_MIN_MS * 2 ** this.failures);
    this.failures++;
    this.events.journalctlEnded(reason, delay, failed);
    this.restartTimer = this.ctx.scheduler.schedule(() => this.run(), delay);
  }
}

/** Each non-empty line journalctl writes on stderr. */
function forwardStderr(proc: ChildProcessWithoutNullStreams, onLine: (line: string) => void): void {
  let text = '';
  proc.stderr.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    let nl = text.indexOf('\n');
    while (nl >= 0) {
      const line = text.slice(0, nl).trim();
      if (line !== '') onLine(line);
      text = text.slice(nl + 1);
      nl = text.indexOf('\n');
    }
  });
}
