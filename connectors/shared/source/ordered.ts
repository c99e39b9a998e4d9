/**
 * Ordered settlement: a source that resumes from a position (a journal cursor, a file offset, a
 * partition offset) may save a position only once every event read before it was delivered, even
 * when later batches settle first. Batches are tracked in the order they were read; the position
 * advances over the longest prefix of delivered batches (as Vector's `OrderedFinalizer` serves its
 * file, journald and kafka sources). A batch that was not delivered holds the position where it
 * is for the rest of the run, so a restart reads it again: at-least-once, never a skipped event.
 */
import type { DeliveryStatus, EventBatch } from '../../../lib/event.js';
import type { SourceOutput } from './output.js';

/** One tracked batch: its position, and its status once settled. */
interface Entry<P> {
  readonly position: P;
  status: DeliveryStatus | undefined;
}

/** Saves positions strictly in read order; see the module comment. */
export class OrderedSettlement<P> {
  private readonly queue: Entry<P>[] = [];
  private head = 0;
  private held = false;

  constructor(
    private readonly out: SourceOutput,
    /** Saves a position; called with the furthest position whose prefix is all delivered. */
    private readonly advance: (position: P) => void,
    /** Called once, when a batch that was not delivered stops the position for this run. */
    private readonly onHeld: (status: DeliveryStatus, position: P) => void = () => {},
  ) {}

  /** Batches emitted and not yet settled (with acknowledgements). */
  get pending(): number {
    return this.queue.length - this.head;
  }

  /**
   * Emits `batch` (possibly empty: a position read past records that yielded no event) and
   * advances to `position` once it and every earlier batch were delivered.
   */
  emit(batch: EventBatch, position: P): void {
    if (!this.out.acknowledges || (batch.length === 0 && this.pending === 0)) {
      this.out.emit(batch);
      if (!this.held) this.advance(position);
      return;
    }
    const entry: Entry<P> = { position, status: undefined };
    this.queue.push(entry);
    this.out.emitSettled(batch, (status) => {
      entry.status = status;
      this.settle();
    });
  }

  /**
   * Tracks input whose events another part emits (a threaded segment, docs/threads.md): the
   * position advances to `position` once the returned callback was called with `delivered` and
   * every earlier entry settled so. Whether or not a sink acknowledges, it waits for that call.
   * Not to be mixed with {@link emit} on one settlement: without acknowledgements emit advances at once.
   */
  expect(position: P): (status: DeliveryStatus) => void {
    const entry: Entry<P> = { position, status: undefined };
    this.queue.push(entry);
    return (status) => {
      entry.status = status;
      this.settle();
    };
  }

  /** Walks the settled prefix once per settlement; saves only the furthest delivered position. */
  private settle(): void {
    let last: Entry<P> | undefined;
    while (this.head < this.queue.length) {
      const e = this.queue[this.head]!;
      if (e.status === undefined) break;
      if (e.status !== 'delivered' && !this.held) {
        this.held = true;
        this.onHeld(e.status, e.position);
      }
      if (!this.held) last = e;
      this.head++;
    }
    // compact once the consumed prefix dominates, so the queue stays proportional to what is pending
    if (this.head > 64 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    if (last !== undefined) this.advance(last.position);
  }
}
