/**
 * Chained edge buffer: `buffer` given as a list of stages, as Vector takes it (a memory buffer
 * overflowing into a disk buffer). Every stage but the last has `when_full = overflow`: what does
 * not fit in a stage goes to the next one instead of waiting or being dropped, and the last
 * stage's own `when_full` (block or drop_newest) applies at the end of the chain.
 *
 * Stages before the last are built with `block`, so each keeps its own limit and its gate closes
 * exactly when it is full; the chain's gate is open while any stage's gate is open. A batch that
 * arrives while the first stage has room for part of it is split: what fits stays, the rest moves on.
 *
 * Order: each stage is FIFO, but events are not kept in order across stages. Vector's buffering
 * model leaves the order of an overflowing buffer undefined: its reader serves the stage and its
 * overflow fairly rather than draining one before the other. Here the reader takes one pull from
 * each stage that holds events in turn (round robin), so a backlog on disk drains while fresh
 * events keep flowing through memory, and neither waits for the other to empty.
 *
 * Each stage reports its own `buffer_*` metrics (tagged `stage`), acknowledges as it does alone
 * (a disk stage takes over its events' acknowledgements once synced) and keeps its durability.
 */
import type { EventBatch } from '../event.js';
import { GateController } from '../gate.js';
import type { EdgeBuffer } from './buffer.js';

/** One stage of a chain and how much more it takes. */
export interface BufferStage {
  readonly buffer: EdgeBuffer;
  /** Events it takes before it is full: exact for a memory stage, Infinity while a byte-counted stage has room, 0 when full. */
  room(): number;
}

/** The chained buffer: see the module comment. Needs at least two stages. */
export class ChainedBuffer implements EdgeBuffer {
  private readonly ctl = new GateController(true);
  readonly gate = this.ctl;
  private readonly subs: { unsubscribe(): void }[];
  /** Batches a stage answered after the reader that asked had gone (reload); handed out first. */
  private stash: EventBatch[] = [];
  private stashed = 0;
  private waiter: ((b: EventBatch | undefined) => void) | undefined = undefined;
  private waiterMax = 0;
  /** The stage a pull is waiting on, at most one at a time. */
  private inFlight: number | undefined = undefined;
  /** The in-flight stage was released by the chain: its undefined means "ask again", not "ended". */
  private releasedStage: number | undefined = undefined;
  /** Stages that answered undefined on their own: closed and empty, or disposing. */
  private readonly ended: boolean[];
  /** Where the next round-robin look starts. */
  private next = 0;
  private closed = false;

  constructor(private readonly stages: readonly BufferStage[]) {
    if (stages.length < 2) throw new Error('a chained buffer needs at least two stages');
    this.ended = stages.map(() => false);
    this.subs = stages.map((s) => s.buffer.gate.open$.subscribe(() => this.updateGate()));
  }

  /** Events held in every stage, plus any taken out and not yet handed to the reader. */
  get length(): number {
    let n = this.stashed;
    for (const s of this.stages) n += s.buffer.length;
    return n;
  }

  private updateGate(): void {
    let open = false;
    for (const s of this.stages) if (s.buffer.gate.isOpen) open = true;
    this.ctl.set(open);
  }

  push(events: EventBatch, bytes?: number): void {
    if (events.length === 0) return;
    const last = this.stages.length - 1;
    let rest = events;
    let restBytes = bytes;
    for (let i = 0; i < last; i++) {
      const room = this.stages[i]!.room();
      if (room <= 0) continue;
      if (room >= rest.length) {
        this.pushTo(i, rest, restBytes);
        return;
      }
      // what fits stays in this stage; the newest events of the batch overflow
      this.pushTo(i, rest.slice(0, room), undefined);
      rest = rest.slice(room);
      restBytes = undefined;
    }
    this.pushTo(last, rest, restBytes);
  }

  private pushTo(i: number, events: EventBatch, bytes: number | undefined): void {
    this.stages[i]!.buffer.push(events, bytes);
    if (!this.waiter) return;
    const k = this.inFlight;
    if (k === undefined) this.serve();
    else if (k !== i && this.stages[k]!.buffer.length === 0) {
      // the reader waits on an empty stage: let it go and serve the one that has events
      this.releasedStage = k;
      this.stages[k]!.buffer.release();
    }
  }

  pull(max: number): Promise<EventBatch | undefined> {
    if (this.stash.length > 0) return Promise.resolve(this.fromStash(max));
    return new Promise((resolve) => {
      this.waiter = resolve;
      this.waiterMax = max;
      this.serve();
    });
  }

  private fromStash(max: number): EventBatch {
    const head = this.stash[0]!;
    let out = head;
    if (head.length <= max) this.stash.shift();
    else {
      out = head.slice(0, max);
      this.stash[0] = head.slice(max);
    }
    this.stashed -= out.length;
    return out;
  }

  /** Starts a pull on the next stage (round robin) that holds events, or ends a closed, empty chain. */
  private serve(): void {
    if (!this.waiter || this.inFlight !== undefined) return;
    const n = this.stages.length;
    for (let k = 0; k < n; k++) {
      const i = (this.next + k) % n;
      if (!this.ended[i] && this.stages[i]!.buffer.length > 0) {
        this.start(i);
        return;
      }
    }
    if (this.closed) this.answer(undefined);
    // otherwise the next push serves the waiting reader
  }

  private start(i: number): void {
    this.inFlight = i;
    this.next = (i + 1) % this.stages.length;
    this.stages[i]!.buffer.pull(this.waiterMax).then(
      (b) => this.pulled(i, b),
      () => this.pulled(i, undefined),
    );
  }

  private pulled(i: number, b: EventBatch | undefined): void {
    const released = this.releasedStage === i;
    this.inFlight = undefined;
    this.releasedStage = undefined;
    if (b !== undefined && b.length > 0) {
      if (this.waiter) this.answer(b);
      else {
        // the reader went away meanwhile: what was taken waits here for the next one
        this.stash.push(b);
        this.stashed += b.length;
      }
      return;
    }
    if (b === undefined && !released) this.ended[i] = true;
    this.serve();
  }

  private answer(b: EventBatch | undefined): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.(b);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.stages) s.buffer.close();
    this.updateGate();
    this.serve();
  }

  release(): void {
    this.answer(undefined);
    const k = this.inFlight;
    if (k !== undefined) {
      this.releasedStage = k;
      this.stages[k]!.buffer.release();
    }
  }

  async dispose(): Promise<void> {
    this.close();
    for (const s of this.subs) s.unsubscribe();
    await Promise.all(this.stages.map((s) => s.buffer.dispose()));
  }
}
