/**
 * An Observable as the AsyncIterator a GraphQL subscription resolver returns. Values wait in a
 * queue of `capacity`; when the client reads slower than values come, the newest are dropped, so
 * a stalled WebSocket never grows memory or holds back the pipeline. `return()` unsubscribes.
 */
import type { Observable } from 'rxjs';

/** Iterates `source`; drops values while `capacity` are waiting. */
export function toAsyncIterator<T>(source: Observable<T>, capacity: number, onDrop?: () => void): AsyncIterableIterator<T> {
  const queue: T[] = [];
  let waiting: ((r: IteratorResult<T>) => void) | undefined;
  let failed: ((e: unknown) => void) | undefined;
  let done = false;
  let error: unknown;
  let hasError = false;
  const finish = (): IteratorResult<T> => ({ value: undefined, done: true });
  const sub = source.subscribe({
    next(v) {
      if (waiting) {
        const w = waiting;
        waiting = failed = undefined;
        w({ value: v, done: false });
      } else if (queue.length < capacity) queue.push(v);
      else onDrop?.();
    },
    error(e: unknown) {
      hasError = true;
      error = e;
      if (failed) {
        const f = failed;
        waiting = failed = undefined;
        f(e);
      }
    },
    complete() {
      done = true;
      if (waiting) {
        const w = waiting;
        waiting = failed = undefined;
        w(finish());
      }
    },
  });
  const it: AsyncIterableIterator<T> = {
    next() {
      if (queue.length > 0) return Promise.resolve({ value: queue.shift()!, done: false });
      if (hasError) return Promise.reject(error);
      if (done) return Promise.resolve(finish());
      return new Promise((resolve, reject) => {
        waiting = resolve;
        failed = reject;
      });
    },
    return() {
      done = true;
      queue.length = 0;
      sub.unsubscribe();
      if (waiting) {
        const w = waiting;
        waiting = failed = undefined;
        w(finish());
      }
      return Promise.resolve(finish());
    },
    [Symbol.asyncIterator]() {
      return it;
    },
  };
  return it;
}
