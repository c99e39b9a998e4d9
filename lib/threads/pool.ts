/**
 * The pipeline workers of one topology (docs/threads.md): a fixed number of worker threads, each
 * set up with every running segment. A piece goes to the worker with the fewest pieces out and is
 * kept until answered; a worker that exits or throws is replaced, and the pieces it held go out
 * again, so none is lost (one that took down workers three times is answered as failed).
 */
import { Worker } from 'node:worker_threads';
import type { LogRoot, Logger } from '../log.js';
import { type FromWorker, type Piece, type PieceResult, type SegmentSetup, failedResult } from './protocol.js';

/** What a segment hears from the pool. */
export interface SegmentHandler {
  result(r: PieceResult): void;
  setupFailed(error: string): void;
}

/**
 * A worker's young generation: its events live for one piece, so a small nursery collects them as
 * well as V8's default (up to 32 MiB per thread) and keeps each worker's share of the RSS small.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 8 };

/** Attempts a piece gets before it is answered as failed (each attempt ended a worker). */
const MAX_ATTEMPTS = 3;

interface Slot {
  worker: Worker;
  /** Pieces out to this worker, by segment and sequence. */
  readonly pending: Map<string, { piece: Piece; attempts: number }>;
}

const keyOf = (p: { segment: number; seq: number }) => `${p.segment}:${p.seq}`;

export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly setups = new Map<number, SegmentSetup>();
  private readonly handlers = new Map<number, SegmentHandler>();
  /** The worker each answer's buffer came from, until it is given back. */
  private readonly writers = new WeakMap<ArrayBufferLike, Worker>();
  private closing = false;
  /** Workers started, replacements included (tests, metrics). */
  started = 0;
  /** Answer buffers given back to their workers (tests). */
  recycled = 0;

  private readonly log: Logger;

  constructor(
    readonly size: number,
    private readonly entry: URL,
    /** Workers' records are written through it (formatted and rate-limited as the main thread's own). */
    private readonly root: LogRoot,
  ) {
    this.log = root.logger();
  }

  /** Sets a segment up in every worker (starting the workers on first use). */
  register(setup: SegmentSetup, handler: SegmentHandler): void {
    structuredClone(setup); // throws here, before anything changed, when a worker could not receive it
    this.setups.set(setup.segment, setup);
    this.handlers.set(setup.segment, handler);
    if (this.slots.length === 0) for (let i = 0; i < this.size; i++) this.slots.push(this.spawn());
    else for (const s of this.slots) s.worker.postMessage(setup);
  }

  unregister(segment: number): void {
    if (!this.setups.delete(segment)) return;
    this.handlers.delete(segment);
    for (const s of this.slots) s.worker.postMessage({ kind: 'teardown', segment });
  }

  /** Sends a piece to the least busy worker; the pool keeps it until it is answered. */
  dispatch(piece: Piece, attempts = 0): void {
    let best = this.slots[0]!;
    for (const s of this.slots) if (s.pending.size < best.pending.size) best = s;
    best.pending.set(keyOf(piece), { piece, attempts });
    // the bytes are in shared memory: the worker reads them in place, the pool keeps them for a resend
    best.worker.postMessage(piece);
  }

  /** Terminates every worker (the topology stopped). */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }

  /** Kills one worker as a crash would (tests of the recovery). */
  crashOne(index = 0): Promise<number> {
    return this.slots[index]!.worker.terminate();
  }

  private spawn(): Slot {
    const worker = this.entry.pathname.endsWith('.ts')
      ? // run from source (tests, tsx): a worker does not inherit the TypeScript loader, so it registers it first
        new Worker(`import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(this.entry.href)}); })`, { eval: true, resourceLimits: WORKER_LIMITS })
      : new Worker(this.entry, { resourceLimits: WORKER_LIMITS });
    this.started++;
    const slot: Slot = { worker, pending: new Map() };
    for (const setup of this.setups.values()) worker.postMessage(setup);
    worker.on('message', (m: FromWorker) => this.receive(slot, m));
    worker.on('error', (err) => this.log.error('Pipeline worker failed.', { error: err.message }));
    worker.once('exit', (code) => this.exited(slot, code));
    return slot;
  }

  private receive(slot: Slot, m: FromWorker): void {
    if (m.kind === 'log') this.root.emit(m.level, m.msg, m.fields);
    else if (m.kind === 'setup-failed') this.handlers.get(m.segment)?.setupFailed(m.error);
    else {
      slot.pending.delete(keyOf(m));
      if (m.bytes.byteLength > 0) this.writers.set(m.bytes.buffer, slot.worker);
      this.handlers.get(m.segment)?.result(m);
    }
  }

  /**
   * An answer's records were all copied into bodies and are read no more: its buffer goes back to
   * the worker that wrote it (moved, so nothing here can touch it again), unless that one is gone.
   */
  recycle(buffer: ArrayBufferLike): void {
    const worker = this.writers.get(buffer);
    if (worker === undefined) return;
    this.writers.delete(buffer);
    if (this.closing || !this.slots.some((s) => s.worker === worker)) return;
    worker.postMessage({ kind: 'recycle', buffer }, [buffer as ArrayBuffer]);
    this.recycled++;
  }

  /** Replaces a worker that ended while running, and sends what it held to the live ones. */
  private exited(slot: Slot, code: number): void {
    if (this.closing) return;
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.log.error('Pipeline worker exited; starting another and sending its input again.', { exit_code: code, pieces: slot.pending.size });
    const replacement = this.spawn();
    this.slots[i] = replacement;
    for (const { piece, attempts } of slot.pending.values()) {
      if (attempts + 1 >= MAX_ATTEMPTS) {
        this.handlers.get(piece.segment)?.result(failedResult(piece.segment, piece.seq, `input took down ${MAX_ATTEMPTS} pipeline workers`));
      } else this.dispatch(piece, attempts + 1);
    }
  }
}
