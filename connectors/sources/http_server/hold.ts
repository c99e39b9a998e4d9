/**
 * Backpressure for a request/reply source: a request that arrives while the output gate is closed
 * is held, its body unread (so TCP pushes back on the client), until the gate opens or a bounded
 * wait ends; then the caller answers 503 with `Retry-After`.
 */
import { type SchedulerLike, firstValueFrom, first, map, race, timer } from 'rxjs';
import type { Gate } from '../../../lib/gate.js';

/** Milliseconds a request is held while the output is full before it is refused with 503. */
export const HOLD_TIMEOUT_MS = 10_000;

/** Seconds a refused client is asked to wait (`Retry-After`). */
export const RETRY_AFTER_SECS = 1;

/**
 * Resolves true once the gate is open (at once when it already is), false when it stayed closed for
 * `timeoutMs` on `scheduler`'s clock.
 */
export function holdWhileClosed(gate: Gate, timeoutMs: number, scheduler: SchedulerLike): Promise<boolean> {
  if (gate.isOpen) return Promise.resolve(true);
  return firstValueFrom(
    race(
      gate.open$.pipe(first(Boolean)),
      timer(timeoutMs, scheduler).pipe(map(() => false)),
    ),
  );
}
