/**
 * Sends acknowledgements (or deadline changes) in calls of at most {@link MAX_ACK_IDS} ids: ids
 * added in one turn of the event loop go out together. A failed call is counted and logged; its
 * messages come back after their deadline (at-least-once).
 */
import type { PubsubSourceEvents } from './events.js';
import { MAX_ACK_IDS } from './subscription.js';

export interface Acker {
  /** Queues ids for the call. */
  add(ackIds: readonly string[]): void;
  /** Resolves when every queued and running call has finished. */
  idle(): Promise<void>;
}

/** Batches ids for `send`; `verb` names the call in the logs, `timeoutMs` bounds each call. */
export function createAcker(verb: string, send: (ids: string[], signal: AbortSignal) => Promise<void>, events: PubsubSourceEvents, timeoutMs: number): Acker {
  let pending: string[] = [];
  let scheduled = false;
  const running = new Set<Promise<void>>();
  const flush = (): void => {
    scheduled = false;
    for (let i = 0; i < pending.length; i += MAX_ACK_IDS) {
      const ids = pending.slice(i, i + MAX_ACK_IDS);
      const call = send(ids, AbortSignal.timeout(timeoutMs))
        .catch((err: unknown) => events.ackFailed(verb, ids.length, err))
        .finally(() => running.delete(call));
      running.add(call);
    }
    pending = [];
  };
  return {
    add(ids) {
      for (const id of ids) pending.push(id);
      if (!scheduled) {
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
