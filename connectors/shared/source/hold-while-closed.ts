/**
 * Backpressure for push sources with a request/response protocol (OTLP, HTTP servers): while the
 * output gate is closed a request is held, unanswered, until the gate opens; only past a timeout
 * is it refused (503 with `Retry-After`, gRPC UNAVAILABLE), so a client that does not retry, or
 * retries only a few times, loses nothing during a short stall. Vector's sources wait on the send
 * into the pipeline the same way.
 *
 * Held requests are admitted one at a time in arrival order, each on its own scheduler turn once
 * the previous one had the chance to emit: a request that fills the buffer again closes the gate
 * and the rest keep waiting, instead of all of them entering the buffer at once. A request that
 * arrives while others are held waits behind them, so none is starved until its timeout.
 */
import type { SchedulerLike, Subscription } from 'rxjs';
import { type Gate, whenOpen } from '../../../lib/gate.js';

/**
 * Milliseconds a request is held while the output is full before it is refused (the client then
 * retries). Vector waits on the send without a bound; a bound keeps a stalled pipeline from
 * holding connections forever. 30 s outlasts the OpenTelemetry SDKs' default 10 s export timeout,
 * so such a client gives up first (its request is dropped unseen, and it sends it again).
 */
export const REQUEST_HOLD_TIMEOUT_MS = 30_000;

/** One held request. */
interface Waiter {
  readonly resolve: (admitted: boolean) => void;
  timer: Subscription | undefined;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/** The held requests of one gate. */
export interface HoldWhileClosed {
  /**
   * `true` at once when the gate is open and nobody is held; otherwise a promise that resolves
   * `true` when this request's turn comes with the gate open, or `false` after `timeoutMs`, when
   * `signal` aborts (the client went away; at once if it already has) or after {@link close}.
   * An admitted caller must emit synchronously in its continuation, before the next scheduler turn.
   */
  wait(timeoutMs?: number, signal?: AbortSignal): true | Promise<boolean>;
  /** Requests held now. */
  readonly held: number;
  /** Refuses every held request (`false`) and stops waiting for the gate. */
  close(): void;
}

/** Holds requests while `gate` is closed; timeouts and the admission turns run on `scheduler`. */
export function holdWhileClosed(gate: Gate, scheduler: SchedulerLike): HoldWhileClosed {
  const queue: Waiter[] = [];
  let head = 0;
  // at most one of these is pending: a gate subscription, or the turn of the next admission
  let pending: Subscription | undefined;
  let closed = false;

  const settle = (w: Waiter, admitted: boolean) => {
    w.timer?.unsubscribe();
    w.timer = undefined;
    if (w.onAbort !== undefined) w.signal?.removeEventListener('abort', w.onAbort);
    w.signal = undefined;
    w.onAbort = undefined;
    w.resolve(admitted);
  };
  const remove = (w: Waiter) => {
    const i = queue.indexOf(w, head);
    if (i >= 0) queue.splice(i, 1);
    if (head >= queue.length) reset();
  };
  const reset = () => {
    queue.length = 0;
    head = 0;
    pending?.unsubscribe();
    pending = undefined;
  };
  const pump = () => {
    pending = undefined;
    if (head >= queue.length) return reset();
    if (!gate.isOpen) {
      const sub = whenOpen(gate).subscribe(pump);
      // a gate that opened during subscribe has already pumped
      if (!sub.closed) pending = sub;
      return;
    }
    const w = queue[head++]!;
    // compact once the admitted prefix dominates, so the queue stays proportional to what is held
    if (head > 64 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
    if (head >= queue.length) reset();
    else pending = scheduler.schedule(pump, 0);
    settle(w, true);
  };

  return {
    wait(timeoutMs = REQUEST_HOLD_TIMEOUT_MS, signal) {
      if (closed || signal?.aborted === true) return Promise.resolve(false);
      if (gate.isOpen && head >= queue.length) return true;
      return new Promise<boolean>((resolve) => {
        const w: Waiter = { resolve, timer: undefined, signal, onAbort: undefined };
        w.timer = scheduler.schedule(() => {
          w.timer = undefined;
          remove(w);
          settle(w, false);
        }, timeoutMs);
        if (signal !== undefined) {
          w.onAbort = () => {
            remove(w);
            settle(w, false);
          };
          signal.addEventListener('abort', w.onAbort, { once: true });
        }
        queue.push(w);
        if (pending === undefined) pump();
      });
    },
    get held() {
      return queue.length - head;
    },
    close() {
      closed = true;
      const waiting = queue.slice(head);
      reset();
      for (const w of waiting) settle(w, false);
    },
  };
}
