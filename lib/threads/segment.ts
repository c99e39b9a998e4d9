/**
 * The main thread's side of one threaded segment (docs/threads.md): cuts each connection's reads
 * at their last newline into pieces of whole lines, numbers them, hands them to the worker pool
 * and releases the answers strictly in sequence as batches of pre-encoded events. Pieces out are
 * bounded by a gate the source's output gate includes, so a busy pool pushes back on the sender
 * like a full buffer does.
 */
import type { ComponentContext, MessageOutcome, ThreadedIntake } from '../component.js';
import { frameDiscardReporter } from '../codecs/index.js';
import { AnswerRecords, BatchNotifier, EncodedLogEvent, type EventBatch, EventMetadata } from '../event.js';
import { AllGate, GateController } from '../gate.js';
import type { MetricsRegistry } from '../telemetry/registry.js';
import type { WorkerPool } from './pool.js';
import type { PieceResult, SegmentSetup } from './protocol.js';

/** Pieces each worker may hold (sent or answered out of order) before the source pauses. */
const PIECES_PER_WORKER = 4;

/**
 * Size of the shared slabs pieces are written into: one socket read (64 KiB) plus a carried tail
 * fits. Workers read a slab in place (no copy per piece); it is reused once its piece was answered.
 */
const SLAB_BYTES = 128 * 1024;

const NEWLINE = 0x0a;

export interface SegmentOptions {
  readonly pool: WorkerPool;
  readonly setup: SegmentSetup;
  /** The source's context (its counters and log). */
  readonly source: ComponentContext;
  readonly registry: MetricsRegistry;
  /** Longest line in bytes; longer ones are discarded and counted, as the deframer does. */
  readonly maxLength: number;
  /** Events the source decoded (the source's received counters). */
  decoded(events: number, bytes: number): void;
  /** A batch of the segment's output, in order, with its estimated bytes. */
  emit(batch: EventBatch, bytes: number): void;
}

/** A piece before it is copied into shared memory: its bytes as the reads (or body) they are. */
interface WaitingPiece {
  readonly host: string | undefined;
  readonly port: number | undefined;
  readonly parts: readonly Buffer[];
  readonly bytes: number;
  readonly final: boolean;
  readonly meta: unknown;
}

export class ThreadedSegment implements ThreadedIntake {
  /** Closed while the pieces out reach the bound: the source's output gate. */
  readonly gate = new GateController(true);
  /**
   * The gates of the buffers downstream: answers wait while one is closed, still counted as out,
   * so a full buffer stops the reading through {@link gate} with at most the pieces out pending.
   */
  readonly downstream = new AllGate();
  private seq = 0;
  private next = 0;
  private readonly answered = new Map<number, PieceResult>();
  private drained: (() => void)[] = [];
  private readonly limit: number;
  private readonly discarded: ReturnType<typeof frameDiscardReporter>;
  private readonly workerFailed;
  private setupError: string | undefined;
  /** Free slabs, and the slab of each piece out (by sequence). */
  private readonly slabs: SharedArrayBuffer[] = [];
  private readonly slabOf = new Map<number, SharedArrayBuffer>();
  /** Pieces numbered but not yet sent (past the bound), in sequence. */
  private readonly waiting: { seq: number; piece: WaitingPiece }[] = [];
  /** Messages waiting for their outcome, by sequence. */
  private readonly messages = new Map<number, { resolve(o: MessageOutcome): void; acknowledge: boolean }>();

  constructor(private readonly o: SegmentOptions) {
    this.limit = o.pool.size * PIECES_PER_WORKER;
    this.discarded = frameDiscardReporter(o.source);
    this.workerFailed = o.source.telemetry.counter('component_errors_total', { error_type: 'worker_failed', stage: 'processing' });
    o.pool.register(o.setup, {
      result: (r) => this.answer(r),
      setupFailed: (error) => {
        this.setupError = error;
        o.source.log.error('Pipeline worker could not build the segment; its input is lost until the next reload.', { error });
      },
    });
    this.downstream.open$.subscribe((open) => open && this.flush());
  }

  /** Pieces sent and not yet released. */
  get out(): number {
    return this.seq - this.next;
  }

  connection(host: string | undefined, port: number | undefined): { push(chunk: Buffer): void; end(): void } {
    let carry: Buffer[] = [];
    let carried = 0;
    let discarding = false;
    const max = this.o.maxLength;
    const keep = (rest: Buffer) => {
      if (carried + rest.length > max) {
        // as the deframer: a line past the limit is discarded whole, up to its newline
        this.discarded('frame_too_long', carried + rest.length);
        carry = [];
        carried = 0;
        discarding = true;
        return;
      }
      // a copy: the tail must not keep the whole read alive
      carry.push(Buffer.from(rest));
      carried += rest.length;
    };
    return {
      push: (chunk) => {
        let start = 0;
        if (discarding) {
          const nl = chunk.indexOf(NEWLINE);
          if (nl < 0) return;
          discarding = false;
          start = nl + 1;
        }
        const last = chunk.lastIndexOf(NEWLINE);
        if (last < start) {
          if (start < chunk.length) keep(chunk.subarray(start));
          return;
        }
        // the read itself, not a copy: a piece past the bound waits as the read it is
        const parts = carry.length === 0 ? [chunk.subarray(start, last + 1)] : [...carry, chunk.subarray(start, last + 1)];
        const n = carried + last + 1 - start;
        carry = [];
        carried = 0;
        this.send({ host, port, parts, bytes: n, final: false, meta: undefined });
        if (last + 1 < chunk.length) keep(chunk.subarray(last + 1));
      },
      end: () => {
        if (!discarding && carried > 0) this.send({ host, port, parts: carry, bytes: carried, final: true, meta: undefined });
        carry = [];
        carried = 0;
      },
    };
  }

  message(body: Buffer | readonly Buffer[], meta: unknown, acknowledge: boolean): Promise<MessageOutcome> {
    // one piece, whatever its size: its frames decode all or nothing, as the source answers for it whole
    const parts = Buffer.isBuffer(body) ? [body] : body;
    let bytes = 0;
    for (const part of parts) bytes += part.length;
    return new Promise((resolve) => {
      this.messages.set(this.seq, { resolve, acknowledge });
      this.send({ host: undefined, port: undefined, parts, bytes, final: true, meta });
    });
  }

  /** Resolves once every piece sent was answered and released. */
  whenDrained(): Promise<void> {
    if (this.out === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  /** Forgets the segment in the workers (its source finished). */
  close(): void {
    this.o.pool.unregister(this.o.setup.segment);
  }

  /**
   * Numbers a piece and hands it to the pool, or, while as many pieces as the bound are with the
   * workers, keeps it as the reads it is: connections deliver their current read after the gate
   * closed (hundreds of them at once with many connections), and each piece with a worker holds a
   * slab and an answer buffer. So slabs and answers stay at the bound whatever the connections.
   */
  private send(p: WaitingPiece): void {
    const seq = this.seq++;
    if (seq < this.next + this.limit) this.dispatch(seq, p);
    else this.waiting.push({ seq, piece: p });
    if (this.out >= this.limit) this.gate.close();
  }

  /** Copies a piece into shared memory, on a free slab when it fits, and sends it to a worker. */
  private dispatch(seq: number, p: WaitingPiece): void {
    const sab = p.bytes <= SLAB_BYTES ? (this.slabs.pop() ?? new SharedArrayBuffer(SLAB_BYTES)) : new SharedArrayBuffer(p.bytes);
    this.slabOf.set(seq, sab);
    const bytes = Buffer.from(sab, 0, p.bytes);
    let at = 0;
    for (const part of p.parts) at += part.copy(bytes, at);
    this.o.pool.dispatch({ kind: 'piece', segment: this.o.setup.segment, seq, host: p.host, port: p.port, bytes, final: p.final, meta: p.meta });
  }

  private answer(r: PieceResult): void {
    // a piece sent again after its worker died may be answered twice: the first answer counts
    if (r.seq < this.next || this.answered.has(r.seq)) return;
    this.answered.set(r.seq, r);
    this.flush();
  }

  /** Releases the answers that are next in sequence while the buffers downstream take them. */
  private flush(): void {
    for (let a = this.answered.get(this.next); a !== undefined && this.downstream.isOpen; a = this.answered.get(this.next)) {
      this.answered.delete(this.next);
      const sab = this.slabOf.get(this.next)!;
      this.slabOf.delete(this.next);
      if (sab.byteLength === SLAB_BYTES) this.slabs.push(sab);
      const message = this.messages.get(this.next);
      if (message !== undefined) this.messages.delete(this.next);
      this.next++;
      this.release(a, message);
    }
    while (this.waiting.length > 0 && this.waiting[0]!.seq < this.next + this.limit) {
      const w = this.waiting.shift()!;
      this.dispatch(w.seq, w.piece);
    }
    if (this.out < this.limit) this.gate.open();
    if (this.out === 0 && this.drained.length > 0) for (const resolve of this.drained.splice(0)) resolve();
  }

  /** Counts what the worker counted, then emits the piece's records as events. */
  private release(r: PieceResult, message?: { resolve(o: MessageOutcome): void; acknowledge: boolean }): void {
    const reg = this.o.registry;
    for (const [name, tags, delta] of r.counters) reg.counter(name, tags).add(delta);
    if (r.error !== undefined) {
      this.workerFailed.add(1);
      this.o.source.log.error('Pipeline worker could not process input; it is lost.', { error: this.setupError ?? r.error });
      message?.resolve({ status: 'errored', events: 0 });
      return;
    }
    if (r.refused !== undefined) return message?.resolve({ refused: r.refused });
    if (r.decoded > 0) this.o.decoded(r.decoded, r.decodedBytes);
    const n = r.ends.length;
    if (n === 0) return message?.resolve({ status: 'delivered', events: 0 });
    // without acknowledgements one metadata object serves the whole piece; with them each event holds its own claim
    const notifier = message?.acknowledge ? new BatchNotifier((status) => message.resolve({ status, events: n })) : undefined;
    notifier?.retain(n);
    const shared = notifier ? undefined : new EventMetadata(this.o.source.id, this.o.source.type);
    const batch: EventBatch = new Array(n);
    const records = Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength);
    // once the sink copied every record into a body, the buffer goes back to its worker for reuse
    // (a steady flow of new buffers would otherwise cost a full collection every few hundred)
    const pool = this.o.pool;
    const answer = new AnswerRecords(n, () => pool.recycle(r.bytes.buffer));
    let bytes = 0;
    let from = 0;
    for (let i = 0; i < n; i++) {
      const to = r.ends[i]!;
      const b = r.eventBytes[i]!;
      const meta = shared ?? new EventMetadata(this.o.source.id, this.o.source.type, [notifier!]);
      batch[i] = new EncodedLogEvent(meta, records, from, to, b, answer);
      bytes += b;
      from = to + r.gap;
    }
    if (r.keys !== undefined) {
      const keys = r.keys;
      for (let i = 0; i < n; i++) (batch[i] as EncodedLogEvent).rendered = keys[i];
      for (const [i, template, reason] of r.keyFailures ?? []) (batch[i] as EncodedLogEvent).rendered = { template, reason };
    }
    if (r.recordFields !== undefined) for (let i = 0; i < n; i++) (batch[i] as EncodedLogEvent).recordFields = r.recordFields[i];
    this.o.emit(batch, bytes);
    if (message !== undefined && !notifier) message.resolve({ status: 'delivered', events: n });
  }
}
