/**
 * Gathers what a source settles into calls: items added in one turn of the event loop go out
 * together, in calls of at most `max` (a full call goes out at once). For queue deletes and
 * acknowledgements, where one call per message would multiply the round trips.
 */

/** A batcher of items into calls. */
export interface TurnBatcher<T> {
  /** Queues one item. */
  add(item: T): void;
  /** Resolves when every queued and running call has finished. */
  idle(): Promise<void>;
}

/** Batches items for `send`, which must handle its own failures (a rejection is ignored here). */
export function createTurnBatcher<T>(max: number, send: (items: T[]) => Promise<void>): TurnBatcher<T> {
  let pending: T[] = [];
  let scheduled = false;
  const running = new Set<Promise<void>>();
  const start = (items: T[]): void => {
    const call = send(items)
      .catch(() => undefined)
      .finally(() => running.delete(call));
    running.add(call);
  };
  const flush = (): void => {
    scheduled = false;
    for (let i = 0; i < pending.length; i += max) start(pending.slice(i, i + max));
    pending = [];
  };
  return {
    add(item) {
      pending.push(item);
      if (pending.length >= max) {
        start(pending);
        pending = [];
      } else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    async idle() {
      while (scheduled || running.size > 0) {
        if (scheduled) flush();
        await Promise.allSettled([...running]);
      }
    },
  };
}
