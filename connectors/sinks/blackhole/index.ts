/** `blackhole`: accepts and discards events; reports throughput (benchmarks, tests). */
import * as v from 'valibot';
import { Observable } from 'rxjs';
import { defineSink } from '../../../lib/component.js';
import type { Delivery, EventBatch } from '../../../lib/event.js';
import { sinkObject } from '../../../lib/config/options/envelope.js';
import { posint } from '../../../lib/config/options/numbers.js';

export const BlackholeConfig = sinkObject('blackhole', {
  print_interval_secs: v.optional(v.pipe(v.number(), v.minValue(0)), 1),
  rate: v.optional(posint()),
});
export type BlackholeConfig = v.InferOutput<typeof BlackholeConfig>;

export const blackholeSink = defineSink({
  type: 'blackhole',
  summary: 'Discard events (counting them), optionally at a limited rate.',
  schema: BlackholeConfig,
  input: 'any',
  build: (config, ctx) => (source) =>
    new Observable<Delivery>((subscriber) => {
      let total = 0;
      let lastPrinted = -1;
      const timer =
        config.print_interval_secs > 0
          ? setInterval(() => {
              if (total !== lastPrinted) ctx.log.info('Collected events.', { events: total });
              lastPrinted = total;
            }, config.print_interval_secs * 1000)
          : undefined;
      timer?.unref();
      let pending = 0;
      let completed = false;
      const deliver = (batch: EventBatch) => {
        total += batch.length;
        subscriber.next({ status: 'delivered', events: batch, bytes: 0 });
      };
      const sub = source.subscribe({
        next(batch) {
          if (!config.rate) return deliver(batch);
          // rate limit: hold demand closed for as long as this batch takes at `rate` events/s
          pending++;
          ctx.demand.close();
          setTimeout(() => {
            deliver(batch);
            pending--;
            ctx.demand.open();
            if (completed && pending === 0) subscriber.complete();
          }, (batch.length / config.rate) * 1000);
        },
        error: (e) => subscriber.error(e),
        complete: () => {
          completed = true;
          if (pending === 0) subscriber.complete();
        },
      });
      return () => {
        sub.unsubscribe();
        if (timer) clearInterval(timer);
      };
    }),
});
