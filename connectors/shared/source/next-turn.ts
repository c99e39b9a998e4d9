/**
 * Runs `fn` on the next turn of the event loop, after pending I/O. Under the real clock that is
 * setImmediate: the async scheduler's 0 ms is a timer of at least 1 ms, which would pace a source
 * that yields between rounds of reading. Under a test's virtual clock it is the scheduler's own 0 ms.
 */
import { type SchedulerLike, type Unsubscribable, asyncScheduler } from 'rxjs';

export function nextTurn(scheduler: SchedulerLike, fn: () => void): Unsubscribable {
  if (scheduler !== asyncScheduler) return scheduler.schedule(fn, 0);
  const handle = setImmediate(fn);
  return { unsubscribe: () => clearImmediate(handle) };
}
