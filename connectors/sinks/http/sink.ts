/**
 * The `http` sink as RxJS operators (STYLE §2): encode once, batch, build a request, then in
 * flight under the concurrency limit: rate limit, retries with Fibonacci backoff, a timeout
 * per attempt. Emits one Delivery per request; the topology settles and counts them.
 */
import {
  type Observable,
  type OperatorFunction,
  Subject,
  TimeoutError,
  catchError,
  defer,
  finalize,
  from,
  map,
  merge,
  mergeMap,
  of,
  tap,
  throwError,
  timeout,
} from 'rxjs';
import type { SinkContext } from '../../../lib/component.js';
import type { Delivery, EventBatch, Event } from '../../../lib/event.js';
import { createCompressor } from '../../../lib/net/compression.js';
import { type HttpResponse } from '../../../lib/net/http-client.js';
import { batchLimits, rebatch } from '../../../operators/batch-by.js';
import { concurrencyController, type Outcome } from '../../../operators/concurrency.js';
import { inFlight } from '../../../operators/in-flight.js';
import { RateLimiter } from '../../../operators/rate-limit.js';
import { retryFibonacci, retryPolicy } from '../../../operators/retry-fibonacci.js';
import type { HttpSinkConfig } from './config.js';
import { type EncodedEvent, createHttpEncoder } from './encoder.js';
import { HttpSinkEvents } from './events.js';
import { type HttpSinkRequest, buildRequest } from './request.js';
import { HttpStatusError, classifyStatus, failedStatus, isRetriable } from './retry.js';
import { type HttpService, createHttpService } from './service.js';

/** A finished request: its Delivery and what the concurrency controller learns from it. */
interface Result {
  readonly delivery: Delivery;
  readonly outcome: Outcome;
}

/** Largest rate_limit_num that still means a limit (the defaults, ~9.2e18, mean none). */
const UNLIMITED = Number.MAX_SAFE_INTEGER;

/** Builds the sink; options that cannot work (TLS files, compression) fail here. */
export function buildHttpSink(config: HttpSinkConfig, ctx: SinkContext, service?: HttpService): OperatorFunction<EventBatch, Delivery> {
  const scheduler = ctx.scheduler;
  const encoder = createHttpEncoder(config);
  const compressor = createCompressor(config.compression);
  const send = service ?? createHttpService(config, ctx.globals, encoder.contentType, compressor);
  const events = new HttpSinkEvents(ctx);
  const limits = batchLimits(config.batch);
  const req = config.request;
  const timeoutMs = req.timeout_secs * 1000;
  const policy = retryPolicy(req, isRetriable, (err, n, ms) => events.retrying(err, n, ms));
  const t = ctx.telemetry;
  const controller = concurrencyController(req, scheduler, {
    limit: t.gauge('adaptive_concurrency_limit'),
    inFlight: t.gauge('adaptive_concurrency_in_flight'),
    observedRtt: t.gauge('adaptive_concurrency_observed_rtt'),
    averagedRtt: t.gauge('adaptive_concurrency_averaged_rtt'),
  });
  const rate = req.rate_limit_num < UNLIMITED ? new RateLimiter(req.rate_limit_num, req.rate_limit_duration_secs * 1000, scheduler) : undefined;

  /** One attempt: aborted when its timeout fires or the sink stops. */
  const attempt = (request: HttpSinkRequest): Observable<HttpResponse> =>
    defer(() => {
      const abort = new AbortController();
      let settled = false;
      const response = send.send(request, abort.signal).finally(() => (settled = true));
      return from(response).pipe(
        timeout({ first: timeoutMs, with: () => throwError(() => new TimeoutError()), scheduler }),
        map((res) => {
          if (classifyStatus(res.status) !== 'ok') throw new HttpStatusError(res.status, res.body);
          return res;
        }),
        // only an unfinished attempt is aborted: aborting a finished one would cost the pooled connection
        finalize(() => settled || abort.abort()),
      );
    });

  const deliver = (items: EncodedEvent[]): Observable<Result> =>
    from(buildRequest(items, encoder, compressor)).pipe(
      mergeMap((request) =>
        attempt(request).pipe(
          retryFibonacci(policy, scheduler),
          map((): Result => ({ delivery: { status: 'delivered', events: request.events, bytes: request.body.length }, outcome: 'ok' })),
          catchError((err: unknown) => {
            const status = failedStatus(err);
            events.failed(err, request.events.length, status);
            // reference sinks §0.5: back-pressure is a Retry outcome, a retriable error or a timeout
            return of<Result>({ delivery: { status, events: request.events, bytes: 0 }, outcome: isRetriable(err) ? 'backpressure' : 'other' });
          }),
        ),
      ),
    );

  return (source) =>
    defer(() => {
      const dropped$ = new Subject<Delivery>();
      const encodeBatch = (batch: EventBatch): EncodedEvent[] => {
        const out: EncodedEvent[] = [];
        let dropped: Event[] | undefined;
        for (let i = 0; i < batch.length; i++) {
          const e = batch[i]!;
          try {
            const enc = encoder.encode(e);
            if (enc.size > limits.maxBytes) {
              events.eventTooLarge(enc.size, limits.maxBytes);
              (dropped ??= []).push(e);
            } else out.push(enc);
          } catch (err) {
            events.encodeFailed(err);
            (dropped ??= []).push(e);
          }
        }
        if (dropped) dropped$.next({ status: 'rejected', events: dropped, bytes: 0 });
        return out;
      };
      const sent$ = source.pipe(
        map(encodeBatch),
        tap({ complete: () => dropped$.complete(), error: () => dropped$.complete() }),
        rebatch(limits, (x: EncodedEvent) => x.size, scheduler),
        inFlight(deliver, { controller, demand: ctx.demand, rate, scheduler, outcome: (r) => r.outcome }),
        map((r) => r.delivery),
      );
      return merge(dropped$, sent$).pipe(finalize(() => void (service ? undefined : send.close())));
    });
}

/** reference sinks §1: only with `healthcheck.uri`; `HEAD` must answer exactly 200; never retried. */
export async function httpHealthcheck(config: HttpSinkConfig, ctx: Pick<SinkContext, 'globals'>, service?: HttpService): Promise<void> {
  if (config.healthcheck.enabled === false || !config.healthcheck.uri) return;
  const encoder = createHttpEncoder(config);
  const compressor = createCompressor(config.compression);
  const send = service ?? createHttpService(config, ctx.globals, encoder.contentType, compressor);
  try {
    const res = await send.head(config.healthcheck.uri, AbortSignal.timeout(config.request.timeout_secs * 1000));
    if (res.status !== 200) throw new Error(`health check of ${config.healthcheck.uri} answered ${res.status}, expected 200`);
  } finally {
    if (!service) await send.close();
  }
}
