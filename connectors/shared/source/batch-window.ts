/**
 * The batch window of sources that read record by record (a journal line, a file line): a batch
 * opens at its first event and closes after `maxRecords` records or `timeoutMs` after it opened,
 * whichever comes first, so one `next()` carries many events while a quiet input is still
 * emitted promptly. Time goes through the scheduler (virtual time in tests).
 */
import type { SchedulerLike, Subscription } from 'rxjs';
import type { Event } from '../../../lib/event.js';

/** Receives a closed batch. */
export type WindowFlush = (events: Event[]) => void;

/** Collects events into batches; see the module comment. */
export class BatchWindow {
  private events: Event[] | undefined;
  private records = 0;
  private timer: Subscription | undefined;

  constructor(
    private readonly maxRecords: number,
    private readonly timeoutMs: number,
    private readonly scheduler: SchedulerLike,
    private readonly onFlush: WindowFlush,
  ) {}

  /** Whether a batch is open. */
  get isOpen(): boolean {
    return this.events !== undefined;
  }

  /** Adds an event; opens a batch if none is open. */
  push(event: Event): void {
    if (this.events === undefined) {
      this.events = [];
      this.timer = this.scheduler.schedule(() => this.flush(), this.timeoutMs);
    }
    this.events.push(event);
    this.count();
  }

  /** A record that yielded no event (filtered, invalid) still counts toward an open batch's size. */
  skip(): void {
    if (this.events !== undefined) this.count();
  }

  /** Closes the open batch now (end of input, shutdown); nothing when none is open. */
  flush(): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
    const events = this.events;
    if (events === undefined) return;
    this.events = undefined;
    this.records = 0;
    this.onFlush(events);
  }

  /** Drops the open batch and its timer (teardown). */
  close(): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
    this.events = undefined;
    // the dropped batch's records must not count toward the next one
    this.records = 0;
  }

  private count(): void {
    if (++this.records >= this.maxRecords) this.flush();
  }
}
