/**
 * The `file` sink: events appended to the file their rendered `path` names, one open handle per
 * path, closed after `idle_timeout_secs` without writes. Each batch is grouped by path, encoded
 * and framed per group, gzip-compressed per group when configured (a gzip member per write, so
 * the file stays a valid multi-member gzip stream at every batch boundary), then delivered.
 */
import { type FileHandle, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type OperatorFunction, type Subscription, firstValueFrom, timer } from 'rxjs';
import { createBatchEncoder } from '../../../lib/codecs/index.js';
import { reportEncodeFailures, serialWriter } from '../../shared/stream-writer.js';
import { SinkEvents } from '../../shared/sink-events.js';
import type { SinkContext } from '../../../lib/component.js';
import type { Delivery, Event, EventBatch } from '../../../lib/event.js';
import { createCompressor } from '../../../lib/net/compression.js';
import { compileTemplate } from '../../../lib/template.js';
import { resolveTimezone } from '../../../lib/time/strftime.js';
import { fibonacciDelay } from '../../../operators/retry-fibonacci.js';
import type { FileSinkConfig } from './config.js';
import { makeDir } from './make-dir.js';
import { isOutOfDescriptors, isTransientWriteError } from './write-errors.js';

interface OpenFile {
  readonly handle: FileHandle;
  lastWriteMs: number;
}

/** Builds the sink. */
export function buildFileSink(config: FileSinkConfig, ctx: SinkContext): OperatorFunction<EventBatch, Delivery> {
  const template = compileTemplate(config.path);
  const tz = resolveTimezone(config.timezone ?? ctx.globals.timezone);
  const encoder = createBatchEncoder(config.encoding, config.framing, ctx.globals.log_schema);
  const sinkEvents = new SinkEvents(ctx);
  const compressor = createCompressor(config.compression);
  const idleMs = config.idle_timeout_secs * 1000;
  const files = new Map<string, OpenFile>();
  const openFiles = ctx.telemetry.gauge('open_files');
  let idleTimer: Subscription | undefined;
  // idle closing and writes share one queue, so a handle is never closed under a write
  let io: Promise<unknown> = Promise.resolve();
  const enqueue = <T>(job: () => Promise<T>): Promise<T> => {
    const p = io.then(job);
    io = p.catch(() => undefined);
    return p;
  };

  const fileFor = async (path: string): Promise<OpenFile> => {
    let f = files.get(path);
    if (f) return f;
    let handle: FileHandle;
    try {
      handle = await open(path, 'a');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await makeDir(dirname(path));
      handle = await open(path, 'a');
    }
    f = { handle, lastWriteMs: 0 };
    files.set(path, f);
    openFiles.set(files.size);
    scheduleIdleCheck();
    return f;
  };

  const closeFile = async (path: string, f: OpenFile) => {
    files.delete(path);
    openFiles.set(files.size);
    await f.handle.close();
  };

  const scheduleIdleCheck = () => {
    if (idleTimer || files.size === 0) return;
    idleTimer = ctx.scheduler.schedule(() => {
      idleTimer = undefined;
      void enqueue(async () => {
        const now = ctx.scheduler.now();
        for (const [path, f] of [...files]) if (now - f.lastWriteMs >= idleMs) await closeFile(path, f);
        scheduleIdleCheck();
      });
    }, Math.max(100, Math.min(idleMs, 1000)));
  };

  const writeErrors = ctx.telemetry.counter('component_errors_total', { error_type: 'writer_failed', stage: 'sending' });
  /** Appends to the file of `path`; an error of the environment is retried with backoff until it clears. */
  const appendRetrying = async (path: string, data: Buffer): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      try {
        const f = await fileFor(path);
        await f.handle.appendFile(data);
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

  const write = async (batch: EventBatch): Promise<Delivery[]> => {
    const groups = new Map<string, Event[]>();
    const unrendered: Event[] = [];
    for (const e of batch) {
      const path = template.isDynamic ? template.render(e, tz) : template.text;
      if (path === undefined) {
        unrendered.push(e);
        continue;
      }
      const g = groups.get(path);
      if (g) g.push(e);
      else groups.set(path, [e]);
    }
    if (unrendered.length > 0) sinkEvents.templateFailed(new Error(`path template ${JSON.stringify(template.text)}: missing ${template.missingFields(unrendered[0]!).join(', ')}`), unrendered.length);
    const delivered: Event[] = [];
    const rejected: Event[] = unrendered;
    let bytes = 0;
    for (const [path, events] of groups) {
      const encoded = encoder.encode(events);
      reportEncodeFailures(sinkEvents, encoded.failed, encoded.reason);
      for (const e of encoded.failed) rejected.push(e);
      if (encoded.encoded.length === 0) continue;
      const data = await compressor.compress(encoded.bytes);
      try {
        await appendRetrying(path, data);
      } catch (err) {
        pathFailed(path, err, encoded.encoded.length);
        for (const e of encoded.encoded) rejected.push(e);
        continue;
      }
      bytes += data.length;
      for (const e of encoded.encoded) delivered.push(e);
    }
    const out: Delivery[] = [];
    if (delivered.length > 0) out.push({ status: 'delivered', events: delivered, bytes });
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
    flush: () => enqueue(closeAll),
    dispose: () => void enqueue(closeAll).catch(() => undefined),
  });
}
