/** The `eventdb_metrics` source: scrape a statistics endpoint at start and every interval. */
import { Observable, type ObservableInput, type SchedulerLike, defer, exhaustMap, filter, takeUntil, timer } from 'rxjs';
import type { SourceContext } from '../../../lib/component.js';
import type { EventBatch } from '../../../lib/event.js';
import { type Gate, gatedScheduler } from '../../../lib/gate.js';
import { createHttpClient } from '../../../lib/net/http-client.js';
import { resolveProxy } from '../../../lib/net/proxy.js';
import { Timestamp } from '../../../lib/value.js';
import type { EventdbMetricsConfig } from './config.js';
import { eventdbTelemetry, parseFailed, requestFailed } from './events.js';
import { statsToMetrics } from './stats.js';

// a statistics document with many queues runs past the client's default body cap
const MAX_STATS_CHARS = 16 * 1024 * 1024;

/**
 * Runs `scrape` at once and then every `periodMs`, each tick waiting while `gate` is closed; a tick
 * that comes while a scrape is still running is skipped. `undefined` results are not emitted.
 */
export function scrapeEvery<T>(periodMs: number, scrape: () => ObservableInput<T | undefined>, gate: Gate, scheduler: SchedulerLike): Observable<T> {
  return timer(0, periodMs, gatedScheduler(gate, scheduler)).pipe(
    exhaustMap(() => defer(scrape)),
    filter((x): x is T => x !== undefined),
  );
}

/** Builds the source; request and parse failures are counted and skip one scrape, never end the source. */
export function buildEventdbMetricsSource(config: EventdbMetricsConfig, ctx: SourceContext): Observable<EventBatch> {
  const periodMs = config.scrape_interval_secs * 1000;
  const telemetry = eventdbTelemetry(ctx);
  return new Observable<EventBatch>((subscriber) => {
    const client = createHttpClient({ proxy: resolveProxy(config.proxy, ctx.globals.proxy) });
    const scrapeOnce = () =>
      new Observable<EventBatch | undefined>((one) => {
        const abort = new AbortController();
        let timedOut = false;
        // a hung endpoint must not hold back every later scrape: give up after one interval
        const deadline = ctx.scheduler.schedule(() => {
          timedOut = true;
          abort.abort();
        }, periodMs);
        client
          .send({ url: config.endpoint, method: 'GET', headers: { 'content-type': 'application/json' }, signal: abort.signal, maxBodyChars: MAX_STATS_CHARS })
          .then(
            (res) => {
              telemetry.receivedBytes.add(Buffer.byteLength(res.body));
              // the status is not checked: the body decides, as in Vector
              const scrapedAt = ctx.scheduler.now();
              const metrics = statsToMetrics(res.body, config.default_namespace, new Timestamp(Math.floor(scrapedAt)), ctx.id);
              if (typeof metrics === 'string') {
                parseFailed(ctx, telemetry, config.endpoint, metrics, res.status);
                return undefined;
              }
              telemetry.lag.record(Math.max(0, ctx.scheduler.now() - scrapedAt) / 1000);
              return metrics;
            },
            (err: unknown) => {
              // aborted by teardown: the source is stopping, nothing failed
              if (abort.signal.aborted && !timedOut) return undefined;
              requestFailed(ctx, telemetry, config.endpoint, timedOut ? new Error(`no answer within ${config.scrape_interval_secs} s`) : err);
              return undefined;
            },
          )
          .then((batch) => {
            deadline.unsubscribe();
            one.next(batch);
            one.complete();
          });
        return () => {
          deadline.unsubscribe();
          abort.abort();
        };
      });
    const sub = scrapeEvery(periodMs, scrapeOnce, ctx.out, ctx.scheduler).pipe(takeUntil(ctx.shutdown$)).subscribe(subscriber);
    return () => {
      sub.unsubscribe();
      void client.close();
    };
  });
}
