/**
 * The source skeleton: every source is `runSource(ctx, options, start)`. `start` receives the
 * subscription's {@link SourceOutput} (accounting, emission, acknowledgements) and begins reading;
 * it returns how to drain and how to close. The skeleton owns the rest of a source's life: a
 * start that throws fails the source (a build error the topology reports), `ctx.shutdown$`
 * drains it (stop taking input, finish what is in hand, then complete), and unsubscribing
 * closes it at once.
 */
import { Observable, type Subscriber, take } from 'rxjs';
import type { SourceContext } from '../../../lib/component.js';
import type { EventBatch, RoutedBatch } from '../../../lib/event.js';
import { SourceOutput, type SourceOutputOptions } from './output.js';

/** What a started source hands back to the skeleton. */
export interface RunningSource {
  /**
   * Called once when the pipeline stops: stop taking new input and finish what is in hand; the
   * source completes when the returned promise settles. Absent: the source completes at once.
   */
  drain?(): PromiseLike<void> | void;
  /** Stops everything at once (unsubscribe, or after the drain). */
  close?(): void;
}

/** Runs a source on the skeleton; see the module comment. */
export function runSource<B extends EventBatch | RoutedBatch = EventBatch>(
  ctx: SourceContext,
  options: SourceOutputOptions,
  start: (out: SourceOutput) => RunningSource | void,
): Observable<B> {
  return new Observable<B>((subscriber) => {
    const out = new SourceOutput(ctx, subscriber as Subscriber<EventBatch | RoutedBatch>, options);
    let running: RunningSource | void;
    try {
      running = start(out);
    } catch (err) {
      subscriber.error(err);
      return undefined;
    }
    // take(1): a shutdown$ that replays the stop signal fires during subscribe, and drains once
    const shutdown = ctx.shutdown$.pipe(take(1)).subscribe(() => {
      let drained: PromiseLike<void> | void;
      try {
        drained = running?.drain?.();
      } catch (err) {
        return subscriber.error(err);
      }
      if (drained === undefined) return subscriber.complete();
      drained.then(
        () => subscriber.complete(),
        (err: unknown) => subscriber.error(err),
      );
    });
    return () => {
      shutdown.unsubscribe();
      running?.close?.();
    };
  });
}
