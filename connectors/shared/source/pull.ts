/**
 * Backpressure for pull sources (a queue's receive, a scrape): the read is repeated only while
 * the output gate is open (`pullWhile`), here paced to one read per period.
 */
import { type Observable, type ObservableInput, type SchedulerLike, defer, timer } from 'rxjs';
import { type Gate, pullWhile } from '../../../lib/gate.js';

/**
 * Reads at once, then again `periodMs` after each read started (at once when a read took longer
 * than a period, so a slow endpoint is never read twice at the same time), each time waiting
 * while `gate` is closed. `undefined` results are not emitted. Each subscription keeps its own pace.
 */
export function pullEvery<T>(periodMs: number, read: () => ObservableInput<T | undefined>, gate: Gate, scheduler: SchedulerLike): Observable<T> {
  // per subscription: a start time shared by two subscriptions would pace each on the other's reads
  return defer(() => {
    let startedAt = 0;
    return pullWhile(
      () => {
        startedAt = scheduler.now();
        return read();
      },
      gate,
      () => timer(Math.max(0, startedAt + periodMs - scheduler.now()), scheduler),
    );
  });
}
