/**
 * One HTTP GET of a scraping source (`eventdb_metrics`, `prometheus_scrape`), bounded by a timeout
 * on the source's scheduler: a hung endpoint must not hold back later scrapes. The observable emits
 * one result and completes; unsubscribing aborts the request (the source stops), which emits
 * nothing.
 */
import { Observable, type SchedulerLike } from 'rxjs';
import type { HttpClient, HttpRequest, HttpResponse } from '../../../lib/net/http-client.js';

/** The answer, or why there is none (a timeout is an error naming the limit). */
export type ScrapeResult = { readonly response: HttpResponse; readonly error?: undefined } | { readonly response?: undefined; readonly error: Error };

/** Sends `request` once; gives up after `timeoutMs`. */
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
