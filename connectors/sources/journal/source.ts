/**
 * The `journal` source: runs `journalctl --follow --output=json` and turns its lines into batches
 * as Vector's journald source does. A batch opens at the first record that passes the filter and closes after
 * `batch_size` lines or 10 ms; the cursor of the last line read is saved after the batch is taken
 * downstream (or delivered, with acknowledgements). journalctl is restarted with backoff when it
 * ends, from the last cursor emitted; its stdout pauses while the output gate is closed.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { Observable, type Subscription } from 'rxjs';
import type { SourceContext } from '../../../lib/component.js';
import { BatchNotifier, type DeliveryStatus, type EventBatch, type LogEvent, attachNotifier } from '../../../lib/event.js';
import { Timestamp } from '../../../lib/value.js';
import { pauseWhileClosed } from '../../shared/pause-while-closed.js';
import { type Checkpoint, openCheckpoint } from './checkpoint.js';
import { type StartAt, journalctlArgs, journalctlVersion } from './command.js';
import { type JournalSourceConfig, unitMatches } from './config.js';
import { checkpointFailed, invalidRecord, journalTelemetry, journalctlEnded, journalctlStderr } from './events.js';
import { type EventKeys, parseRecord, recordFilter, recordToEvent } from './record.js';

/** A batch closes this long after its first record even when short (as in Vector). */
const BATCH_WINDOW_MS = 10;
const RESTART_MIN_MS = 1000;
const RESTART_MAX_MS = 30_000;
const NEWLINE = 0x0a;

/** Builds the source; fails (as a build error) when journalctl cannot tell its version or the checkpoint folder cannot be made. */
export function buildJournalSource(config: JournalSourceConfig, ctx: SourceContext): Observable<EventBatch> {
  if (config.remap_priority) ctx.log.warn('remap_priority is deprecated; convert PRIORITY with the remap transform instead.');
  if (config.acknowledgements.enabled !== undefined)
    ctx.log.warn('acknowledgements.enabled on the journal source is deprecated and has no effect; enable acknowledgements on the sinks or globally.');
  const keep = recordFilter(unitMatches(config.include_matches, config.include_units), unitMatches(config.exclude_matches, config.exclude_units));
  const schema = ctx.globals.log_schema;
  const keys: EventKeys = { message: schema.message_key, host: schema.host_key, timestamp: schema.timestamp_key, sourceType: schema.source_type_key };
  const telemetry = journalTelemetry(ctx);

  return new Observable<EventBatch>((subscriber) => {
    let checkpoint: Checkpoint;
    let start: StartAt;
    try {
      checkpoint = openCheckpoint(config.data_dir ?? ctx.globals.data_dir, ctx.id);
      const saved = checkpoint.read();
      start = saved !== undefined ? { cursor: saved } : config.since_now ? 'now' : 'all';
    } catch (err) {
      subscriber.error(new Error(`journal checkpoint in ${config.data_dir ?? ctx.globals.data_dir}: ${(err as Error).message}`));
      return undefined;
    }
    const pauser = pauseWhileClosed(ctx.out);
    let stopped = false;
    let child: ChildProcessWithoutNullStreams | undefined;
    let restartTimer: Subscription | undefined;
    let failures = 0;
    let version = 0;

    // the open batch
    let batch: LogEvent[] | undefined;
    let linesInBatch = 0;
    let batchBytes = 0;
    let batchTimer: Subscription | undefined;
    let lastCursorRead: string | undefined;

    // with acknowledgements: batches awaiting delivery, oldest first
    const pending: { cursor: string | undefined; status: DeliveryStatus | undefined }[] = [];

    const save = (cursor: string | undefined) => {
      if (cursor === undefined) return;
      try {
        checkpoint.save(cursor);
      } catch (err) {
        checkpointFailed(ctx, telemetry, checkpoint.path, err);
      }
    };
    // strictly in batch order: a later cursor is never saved before an earlier batch settles
    const settleInOrder = () => {
      let cursor: string | undefined;
      while (pending.length > 0 && pending[0]!.status !== undefined) {
        const done = pending.shift()!;
        if (done.status === 'delivered' && done.cursor !== undefined) cursor = done.cursor;
      }
      save(cursor);
    };

    const flush = () => {
      batchTimer?.unsubscribe();
      batchTimer = undefined;
      const events = batch;
      if (events === undefined) return;
      batch = undefined;
      linesInBatch = 0;
      telemetry.receivedBytes.add(batchBytes);
      batchBytes = 0;
      const cursor = lastCursorRead;
      // a restart of journalctl resumes after what was emitted, not after what was saved
      if (cursor !== undefined) start = { cursor };
      if (ctx.acknowledgements) {
        const entry: (typeof pending)[number] = { cursor, status: undefined };
        pending.push(entry);
        attachNotifier(
          events,
          new BatchNotifier((status) => {
            entry.status = status;
            settleInOrder();
          }),
        );
      }
      subscriber.next(events);
      if (!ctx.acknowledgements) save(cursor);
      if (child) pauser.pauseIfClosed(child.stdout);
    };

    const countLine = () => {
      if (++linesInBatch >= config.batch_size) flush();
    };

    const handleLine = (line: Buffer) => {
      if (line.length === 0) return;
      // invalid UTF-8 becomes U+FFFD (lossy), as the spec asks
      const text = line.toString('utf8');
      // --show-cursor's trailer line, printed when journalctl exits
      if (text.startsWith('-- cursor: ')) return;
      const r = parseRecord(text);
      if (typeof r === 'string') {
        invalidRecord(ctx, telemetry, text, r, line.length);
        if (batch !== undefined) countLine();
        return;
      }
      failures = 0;
      if (r.cursor !== undefined) lastCursorRead = r.cursor;
      if (!keep(r.fields)) {
        if (batch !== undefined) countLine();
        return;
      }
      const event = recordToEvent(r, keys, config.remap_priority, ctx.id);
      const ts = event.fields[keys.timestamp];
      if (ts instanceof Timestamp) telemetry.lag.record(Math.max(0, ctx.scheduler.now() - ts.ms) / 1000);
      if (batch === undefined) {
        batch = [];
        batchTimer = ctx.scheduler.schedule(flush, BATCH_WINDOW_MS);
      }
      batch.push(event);
      batchBytes += line.length;
      countLine();
    };

    const restartLater = (reason: string, failed: boolean) => {
      if (stopped) return;
      const delay = Math.min(RESTART_MAX_MS, RESTART_MIN_MS * 2 ** failures);
      failures++;
      journalctlEnded(ctx, telemetry, reason, delay, failed);
      restartTimer = ctx.scheduler.schedule(run, delay);
    };

    function run() {
      restartTimer = undefined;
      if (stopped) return;
      const args = journalctlArgs(config, version, start);
      const proc = spawn(config.journalctl_path, args, { stdio: ['ignore', 'pipe', 'pipe'] }) as unknown as ChildProcessWithoutNullStreams;
      child = proc;
      let rest: Buffer | undefined;
      let ended = false;
      const end = (reason: string, failed: boolean) => {
        if (ended) return;
        ended = true;
        pauser.forget(proc.stdout);
        if (child === proc) child = undefined;
        // records read so far are whole: send them before journalctl starts again
        flush();
        restartLater(reason, failed);
      };
      proc.stdout.on('data', (chunk: Buffer) => {
        let from = 0;
        let nl = chunk.indexOf(NEWLINE);
        if (rest !== undefined && nl >= 0) {
          handleLine(Buffer.concat([rest, chunk.subarray(0, nl)]));
          rest = undefined;
          from = nl + 1;
          nl = chunk.indexOf(NEWLINE, from);
        }
        while (nl >= 0) {
          handleLine(chunk.subarray(from, nl));
          from = nl + 1;
          nl = chunk.indexOf(NEWLINE, from);
        }
        if (from < chunk.length) rest = rest === undefined ? Buffer.from(chunk.subarray(from)) : Buffer.concat([rest, chunk.subarray(from)]);
      });
      let errText = '';
      proc.stderr.on('data', (chunk: Buffer) => {
        errText += chunk.toString('utf8');
        let nl = errText.indexOf('\n');
        while (nl >= 0) {
          const line = errText.slice(0, nl).trim();
          if (line !== '') journalctlStderr(ctx, line);
          errText = errText.slice(nl + 1);
          nl = errText.indexOf('\n');
        }
      });
      proc.on('error', (err) => end(`could not run ${config.journalctl_path}: ${err.message}`, true));
      proc.on('close', (code, signal) => end(`journalctl exited (${signal ?? `code ${code}`})`, code !== 0));
    }

    journalctlVersion(config.journalctl_path).then(
      (v) => {
        version = v;
        run();
      },
      (err: unknown) => subscriber.error(err),
    );
    const shutdown = ctx.shutdown$.subscribe(() => {
      stopped = true;
      flush();
      child?.kill('SIGTERM');
      subscriber.complete();
    });

    return () => {
      stopped = true;
      shutdown.unsubscribe();
      batchTimer?.unsubscribe();
      restartTimer?.unsubscribe();
      pauser.close();
      child?.kill('SIGTERM');
    };
  });
}
