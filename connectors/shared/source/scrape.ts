/**
 * The HTTP scraping sources (`eventdb_metrics`, `prometheus_scrape`): a round of requests at start
 * and then once per period while the output gate is open ({@link pullEvery}), each GET bounded by a
 * timeout on the source's scheduler, so a hung endpoint does not hold back later rounds.
 */
import { Observable, type SchedulerLike } from 'rxjs';
import type { SourceContext } from '../../../lib/component.js';
import type { EventBatch } from '../../../lib/event.js';
import { type HttpClient, type HttpClientOptions, type HttpRequest, type HttpResponse, createHttpClient } from '../../../lib/net/http-client.js';
import type { SourceOutput } from './output.js';
import { pullEvery } from './pull.js';
import { runSource } from './run.js';

/**
 * Runs a scraping source: `round` makes one round's batch (undefined: nothing to emit) with the
 * source's HTTP client; the received bytes are tagged `protocol=http`.
 */
export function runScraper(
  ctx: SourceContext,
  periodMs: number,
  client: HttpClientOptions,
  round: (client: HttpClient, out: SourceOutput) => Observable<EventBatch | undefined>,
): Observable<EventBatch> {
  return runSource(ctx, { protocol: 'http' }, (out) => {
    const http = createHttpClient(client);
    const rounds = pullEvery(periodMs, () => round(http, out), ctx.out, ctx.scheduler).subscribe({
      next: (batch) => out.emit(batch),
      error: (err: unknown) => out.fail(err),
    });
    return {
      close() {
        rounds.unsubscribe();
        void http.close();
      },
    };
  });
}

/** The answer, or why there is none (a timeout is an error naming the limit). */
export type ScrapeResult = { readonly response: HttpResponse; readonly error?: undefined } | { readonly response?: undefined; readonly error: Error };

/**
 * One GET of a scrape: emits one result and completes; gives up after `timeoutMs`. Unsubscribing
 * aborts the request (the source stops), which emits nothing.
 */
export function scrapeHttp(client: HttpClient, request: Omit<HttpRequest, 'signal'>, timeoutMs: number, scheduler: SchedulerLike): Observable<ScrapeResult> {
  return new Observable<ScrapeResult>((one) => {
    const abort = new AbortController();
    let timedOut = false;
    const deadline = scheduler.schedule(() => {
      timedOut = true;
      abort.abort();
    }, timeoutMs);
    client.send({ ...request, signal: abort.signal }).then(
      (response) => {
        deadline.unsubscribe();
        one.next({ response });
        one.complete();
      },
      (err: unknown) => {
        deadline.unsubscribe();
        // aborted by teardown: the source is stopping, nothing failed and nobody listens
        if (abort.signal.aborted && !timedOut) return;
        one.next({ error: timedOut ? new Error(`no answer within ${timeoutMs / 1000} s`) : err instanceof Error ? err : new Error(String(err)) });
        one.complete();
      },
    );
    return () => {
      deadline.unsubscribe();
      abort.abort();
    };
  });
}
