/**
 * The pull loop between a sink's edge buffer and the sink: it takes the next chunk
 * only while the sink's demand gate is open, so events wait in the buffer, never inside RxJS.
 */
import { Observable } from 'rxjs';
import type { EdgeBuffer } from '../buffer/buffer.js';
import type { EventBatch } from '../event.js';
import { type Gate, waitOpen } from '../gate.js';

/** Lets the topology stop a reader without closing its buffer (reload hands it to a new sink). */
export class DrainControl {
  detached = false;
  /** Milliseconds spent waiting for data (for the utilization gauge). */
  idleMs = 0;
}

/**
 * Emits chunks of at most `max` events pulled from the buffer; completes when the buffer is
 * closed and empty, or when detached. A chunk already taken is always emitted, never dropped.
 */
export function drainBuffer(buffer: EdgeBuffer, demand: Gate, max: number, ctl: DrainControl): Observable<EventBatch> {
  return new Observable<EventBatch>((subscriber) => {
    let stopped = false;
    const loop = async () => {
      while (!stopped && !ctl.detached) {
        const wait = waitOpen(demand);
        if (wait) await wait;
        if (stopped || ctl.detached) break;
        const empty = buffer.length === 0;
        const t0 = empty ? performance.now() : 0;
        const batch = await buffer.pull(max);
        if (empty) ctl.idleMs += performance.now() - t0;
        if (batch === undefined) break;
        if (batch.length > 0) subscriber.next(batch);
      }
      subscriber.complete();
    };
    loop().catch((err: unknown) => subscriber.error(err));
    return () => {
      stopped = true;
    };
  });
}
