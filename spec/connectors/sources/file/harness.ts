/** Runs a `file` source in virtual time on files under a temporary folder. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Subscription, VirtualAction, VirtualTimeScheduler } from 'rxjs';
import * as v from 'valibot';
import { FileSourceConfig, buildFileSource } from '../../../../connectors/sources/file/index.js';
import type { EventBatch, LogEvent } from '../../../../lib/event.js';
import { type TestSourceContext, testSourceContext } from '../source-context.js';

/** A running source and what it emitted. */
export interface Running {
  readonly ctx: TestSourceContext;
  readonly batches: LogEvent[][];
  readonly errors: unknown[];
  events(): LogEvent[];
  messages(): string[];
  stop(): void;
}

/** Temporary folders, virtual time and the sources started in one test. */
export class Harness {
  readonly dir = mkdtempSync(join(tmpdir(), 'weir-file-'));
  readonly data = mkdtempSync(join(tmpdir(), 'weir-file-data-'));
  readonly scheduler = new VirtualTimeScheduler(VirtualAction, Number.POSITIVE_INFINITY);
  private readonly running: Running[] = [];

  /** A path under the temporary folder. */
  path(...parts: string[]): string {
    return join(this.dir, ...parts);
  }

  /** Starts a source with `data_dir` set and `include` defaulting to every `*.log` below the folder. */
  start(o: Record<string, unknown> = {}, opts: { acknowledgements?: boolean; onBatch?: (ctx: TestSourceContext) => void } = {}): Running {
    const config = v.parse(FileSourceConfig, { type: 'file', include: [`${this.dir}/**/*.log`], data_dir: this.data, ...o });
    const base = testSourceContext('file', 'in', this.scheduler);
    const ctx: TestSourceContext = { ...base, acknowledgements: opts.acknowledgements ?? false };
    const batches: LogEvent[][] = [];
    const errors: unknown[] = [];
    const sub: Subscription = buildFileSource(config, ctx).subscribe({
      next: (b: EventBatch) => {
        batches.push(b as LogEvent[]);
        opts.onBatch?.(ctx);
      },
      error: (e: unknown) => errors.push(e),
    });
    const events = () => batches.flat();
    const r: Running = { ctx, batches, errors, events, messages: () => events().map((e) => String(e.fields.message)), stop: () => sub.unsubscribe() };
    this.running.push(r);
    return r;
  }

  /** Runs everything due within the next `ms` virtual milliseconds. */
  advance(ms: number): void {
    this.scheduler.maxFrames = this.scheduler.now() + ms;
    this.scheduler.flush();
    this.scheduler.frame = this.scheduler.maxFrames;
  }

  /** Stops every source and removes the folders. */
  dispose(): void {
    for (const r of this.running.splice(0)) r.stop();
    rmSync(this.dir, { recursive: true, force: true });
    rmSync(this.data, { recursive: true, force: true });
  }
}
