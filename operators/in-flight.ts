/**
 * `mergeMap` with a limit that a controller changes at run time, and with demand: `mergeMap(fn, n)`
 * queues outer values without bound once `n` run, so this operator closes the sink's
 * demand gate while it is at its limit, and the edge buffer stops being pulled.
 */
import { Observable, type ObservableInput, type OperatorFunction, type SchedulerLike, Subscription, asyncScheduler, from } from 'rxjs';
import type { GateController } from '../lib/gate.js';
import type { ConcurrencyController, Outcome } from './concurrency.js';
import type { RateLimiter } from './rate-limit.js';

export interface InFlightOptions<R> {
  readonly controller: ConcurrencyController;
  /** Closed while the limit is reached or items wait; open otherwise. */
  readonly demand?: GateController;
  /**
   * Items that may wait behind the limit before `demand` closes (default 0): with 1, the next
   * batch builds while every permit is out, so a permit that frees starts it at once.
   */
  readonly ahead?: number;
  /** Starts are counted per window; retries inside `work` are not. */
  readonly rate?: RateLimiter;
  readonly scheduler?: SchedulerLike;
  /** Classifies the last value of a finished unit of work for the controller (default `ok`). */
  readonly outcome?: (last: R) => Outcome;
}

/**
 * Runs `work` for each item with at most `controller.limit` running; results in completion order.
 * Completes when the source completed and every unit finished; an error from `work` errors it.
 */
export function inFlight<T, R>(work: (item: T) => ObservableInput<R>, opts: InFlightOptions<R>): OperatorFunction<T, R> {
  const { controller, demand, rate, outcome } = opts;
  const ahead = opts.ahead ?? 0;
  const scheduler = opts.scheduler ?? asyncScheduler;
  return (source) =>
    new Observable<R>((subscriber) => {
      const queue: T[] = [];
      const running = new Set<Subscription>();
      let upstreamDone = false;
      let draining = false;
      let again = false;
      let rateTimer: Subscription | undefined;

      const updateDemand = () => demand?.set(queue.length < ahead || (queue.length === 0 && controller.inFlight < controller.limit));

      const start = (item: T) => {
        const startedAt = controller.acquire();
        const unit = new Subscription();
        running.add(unit);
        let last: R | undefined;
        let hasLast = false;
        let finished = false;
        unit.add(
          from(work(item)).subscribe({
            next: (r) => {
              last = r;
              hasLast = true;
              subscriber.next(r);
            },
            error: (err) => {
              finished = true;
              running.delete(unit);
              controller.release(startedAt, 'other');
              subscriber.error(err);
            },
            complete: () => {
              finished = true;
              running.delete(unit);
              controller.release(startedAt, hasLast && outcome ? outcome(last as R) : 'ok');
              drain();
            },
          }),
        );
        // a unit torn down from outside (unsubscribe) still gives its permit back
        unit.add(() => {
          if (!finished) {
            finished = true;
            running.delete(unit);
            controller.release(startedAt, 'other');
          }
        });
      };

      const drain = () => {
        if (draining) {
          again = true;
          return;
        }
        draining = true;
        do {
          again = false;
          while (queue.length > 0 && controller.inFlight < controller.limit && !subscriber.closed) {
            if (rate) {
              const wait = rate.take();
              if (wait !== true) {
                rateTimer ??= scheduler.schedule(() => {
                  rateTimer = undefined;
                  drain();
                }, wait);
                break;
              }
            }
            start(queue.shift()!);
          }
        } while (again);
        draining = false;
        updateDemand();
        if (upstreamDone && queue.length === 0 && running.size === 0) subscriber.complete();
      };

      const upstream = source.subscribe({
        next: (item) => {
          queue.push(item);
          drain();
        },
        error: (err) => subscriber.error(err),
        complete: () => {
          upstreamDone = true;
          drain();
        },
      });
      return () => {
        upstream.unsubscribe();
        rateTimer?.unsubscribe();
        for (const u of [...running]) u.unsubscribe();
        queue.length = 0;
      };
    });
}
