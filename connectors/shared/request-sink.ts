/**
 * The skeleton of every request-driven sink (Vector's layering): encode each event once with
 * its size, batch (per partition key when the sink routes), build one request per batch, then in
 * flight under the concurrency limit: rate limit, a timeout and abort per attempt, Fibonacci
 * retries. A sink supplies only what is its own ({@link RequestSinkParts}); the skeleton emits one
 * Delivery per settled group of events and the topology settles and counts them.
 */
import { type Observable, type OperatorFunction, Subject, TimeoutError, catchError, concat, defer, filter, finalize, from, map, merge, mergeMap, of, tap, throwError, timeout } from 'rxjs';
import type { SinkContext } from '../../lib/component.js';
import { type Delivery, type DeliveryStatus, type Event, type EventBatch, EncodedLogEvent } from '../../lib/event.js';
import { TemplateError } from '../../lib/template.js';
import { type BatchLimits, rebatch, rebatchBy } from '../../operators/batch-by.js';
import { type ConcurrencyOptions, type Outcome, concurrencyController } from '../../operators/concurrency.js';
import { inFlight } from '../../operators/in-flight.js';
import { RateLimiter } from '../../operators/rate-limit.js';
import { type RetryOptions, retryFibonacci, retryPolicy } from '../../operators/retry-fibonacci.js';
import { SinkEvents } from './sink-events.js';

/** One encoded event; `size` counts against `batch.max_bytes`. */
export interface Encoded {
  readonly event: Event;
  readonly size: number;
  /** Set by the skeleton from `partition` (encoders start it `undefined`, for one object shape). */
  key: string | undefined;
}

/** What every request carries: its events, and the bytes it puts on the wire. */
export interface SinkRequest {
  readonly events: readonly Event[];
  readonly bytes: number;
  /**
   * Events of the batch the build step refused (e.g. out of order for the destination): they
   * settle `rejected` and are never sent. A request left without `events` is not sent at all.
   */
  readonly refused?: readonly Event[];
}

/** Events of an answer the service refused for good, and why: they end `rejected`, never sent again. */
export interface Refused {
  readonly events: readonly Event[];
  readonly reason: Error;
}

/** How the service answered one attempt (Vector's RetryLogic, plus per-record answers). */
export type Verdict<R> =
  | { readonly kind: 'ok' }
  /** `status`: how the events end if this is the last answer (default `errored` for retry, `rejected` for reject). */
  | { readonly kind: 'retry'; readonly error: Error; readonly status?: DeliveryStatus }
  | { readonly kind: 'reject'; readonly error: Error; readonly status?: DeliveryStatus }
  /**
   * Some records failed (Kinesis, Pub/Sub, SQS …): `delivered` are done, `refused` end rejected
   * (reported as a rejected request is), and only `rest` is sent again, after `error` counts as a
   * failed attempt; a `rest` without events ends the request.
   */
  | { readonly kind: 'partial'; readonly delivered: readonly Event[]; readonly rest: R; readonly error: Error; readonly refused?: Refused };

/** The parts that make one sink; everything else is the skeleton's. */
export interface RequestSinkParts<E extends Encoded, R extends SinkRequest, Res> {
  /** Encodes one event; throws for an event it cannot take (that event is rejected and counted). */
  encode(event: Event): E;
  /** Partition key of an encoded event; a {@link TemplateError} rejects that event (counted). */
  partition?(item: E): string;
  /** One request from one batch of one partition (`key` undefined without partitions). */
  build(items: E[], key: string | undefined): R | Promise<R>;
  /** Sends one attempt; rejects with a transport error. Never retries. */
  send(request: R, signal: AbortSignal): Promise<Res>;
  /** Classifies an answer; pure: what it learns goes into the verdict. */
  classify(response: Res, request: R): Verdict<R>;
  /** Whether a thrown transport error is worth another attempt (timeouts always are). */
  isRetriableError(err: unknown): boolean;
  /**
   * For sinks whose service confirms later (indexer acknowledgements): resolves with the final
   * status of an accepted request. The concurrency permit is released before it settles.
   */
  confirm?(response: Res, request: R): Promise<DeliveryStatus>;
  /** Called for every failed attempt (a sink's own counters, e.g. `http_bad_requests_total`). */
  attemptFailed?(err: unknown): void;
  /**
   * A request's attempts are over (delivered, given up, or the sink stopped; an attempt still out
   * was aborted first): nothing sends its bytes again, so a sink may reuse their memory.
   */
  finished?(request: R): void;
  /** Closes connections when the sink stops. */
  close?(): Promise<void> | void;
}

/** The validated options the skeleton reads. */
export interface RequestSinkOptions {
  readonly limits: BatchLimits;
  readonly request: RetryOptions & ConcurrencyOptions & { readonly timeout_secs: number; readonly rate_limit_num: number; readonly rate_limit_duration_secs: number };
  /**
   * As in Vector, old-style sinks (http, cloudg_pubsub) reject an event whose encoded
   * size alone exceeds `max_bytes`; new-style sinks let it form a batch of one.
   */
  readonly rejectOversize?: boolean;
}

/** The answer of one attempt was not ok: whether it may be retried, and how its events end if not. */
export class ResponseError extends Error {
  override readonly name = 'ResponseError';
  constructor(
    readonly reason: Error,
    readonly retriable: boolean,
    readonly status: DeliveryStatus = retriable ? 'errored' : 'rejected',
  ) {
    super(reason.message);
  }
}

/** Largest rate_limit_num that still means a limit (the defaults, ~9.2e18, mean none). */
const UNLIMITED = Number.MAX_SAFE_INTEGER;

/** A unit of work's results: deliveries, and what the concurrency controller learns. */
interface Result {
  readonly delivery?: Delivery;
  readonly pending?: Promise<Delivery>;
  readonly outcome: Outcome;
}

/**
 * The partition key a pipeline worker rendered for an event it encoded (docs/threads.md), thrown as
 * the sink's own rendering would throw when it failed; undefined: the sink renders it here.
 */
function renderedKey(e: Event): string | undefined {
  if (!(e instanceof EncodedLogEvent)) return undefined;
  const r = e.rendered;
  if (typeof r === 'object') throw new TemplateError(r.template, r.reason);
  return r;
}

/** The events of a batch whose request could not be built. */
class BuildFailed {
  constructor(readonly events: readonly Event[]) {}
}

/**
 * The encoded size of each event of one batch, kept once its encoded items are let go: the bytes a
 * partial answer delivered are worked out from them. The lookup is built on the first partial answer.
 */
class BatchSizes {
  private events: Event[] | undefined;
  private sizes: Float64Array | undefined;
  private index: Map<Event, number> | undefined;
  constructor(items: readonly Encoded[]) {
    const n = items.length;
    const events = new Array<Event>(n);
    const sizes = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const item = items[i]!;
      events[i] = item.event;
      sizes[i] = item.size;
    }
    this.events = events;
    this.sizes = sizes;
  }

  /** Sum of the encoded sizes of `events`; an event not of this batch counts 0. */
  sum(events: readonly Event[]): number {
    if (this.index === undefined) {
      const index = new Map<Event, number>();
      for (let i = 0; i < this.events!.length; i++) index.set(this.events![i]!, this.sizes![i]!);
      this.index = index;
      this.events = undefined;
      this.sizes = undefined;
    }
    let total = 0;
    for (let i = 0; i < events.length; i++) total += this.index.get(events[i]!) ?? 0;
    return total;
  }
}

/**
 * Wire bytes of `part`, some events of `request`: the request's bytes shared in proportion to the
 * encoded sizes, exact when the request's bytes are the sum of its items' sizes (no compression).
 */
function bytesOf(request: SinkRequest, part: readonly Event[], sizes: BatchSizes): number {
  if (part.length === 0) return 0;
  const whole = sizes.sum(request.events);
  return whole > 0 ? Math.round((request.bytes * sizes.sum(part)) / whole) : 0;
}

/** The final status of a request given up: the answer's own, else transient failures `errored`, the rest `rejected`. */
const statusOf = (err: unknown, retriable: boolean): DeliveryStatus => (err instanceof ResponseError ? err.status : retriable ? 'errored' : 'rejected');

/** Builds the sink operator from its parts; the parts are fixed at build time. */
export function requestSink<E extends Encoded, R extends SinkRequest, Res>(
  parts: RequestSinkParts<E, R, Res>,
  opts: RequestSinkOptions,
  ctx: SinkContext,
): OperatorFunction<EventBatch, Delivery> {
  const { scheduler } = ctx;
  const events = new SinkEvents(ctx);
  const { limits, request: req } = opts;
  const timeoutMs = req.timeout_secs * 1000;
  const isRetriable = (err: unknown): boolean =>
    err instanceof ResponseError ? err.retriable : err instanceof TimeoutError || parts.isRetriableError(err);
  const policy = retryPolicy(req, isRetriable, (err, n, ms) => {
    parts.attemptFailed?.(err instanceof ResponseError ? err.reason : err);
    events.retrying(err, n, ms);
  });
  const t = ctx.telemetry;
  const controller = concurrencyController(req, scheduler, {
    limit: t.gauge('adaptive_concurrency_limit'),
    inFlight: t.gauge('adaptive_concurrency_in_flight'),
    observedRtt: t.gauge('adaptive_concurrency_observed_rtt'),
    averagedRtt: t.gauge('adaptive_concurrency_averaged_rtt'),
  });
  const rate = req.rate_limit_num < UNLIMITED ? new RateLimiter(req.rate_limit_num, req.rate_limit_duration_secs * 1000, scheduler) : undefined;

  /**
   * One batch: its request is built inside the permit (compression included), then attempted.
   * The encoded items are let go once the request holds the bytes: an attempt in flight keeps its
   * body and events alive, not every event's encoded form as well.
   */
  const deliver = (batch: E[]): Observable<Result> => {
    let held: E[] | undefined = batch;
    let sizes: BatchSizes | undefined;
    const build = async (): Promise<R | BuildFailed> => {
      const items = held!;
      held = undefined;
      sizes = new BatchSizes(items);
      try {
        return await parts.build(items, items[0]!.key);
      } catch (err) {
        // a request that cannot be built (compression failed) is no reason to stop the sink
        events.encodeFailed(err, items.length);
        return new BuildFailed(items.map((x) => x.event));
      }
    };
    return defer(build).pipe(
      mergeMap((request) => {
        if (request instanceof BuildFailed) return of<Result>({ delivery: { status: 'rejected', events: request.events, bytes: 0 }, outcome: 'other' });
        const refused = request.refused;
        if (!refused || refused.length === 0) return attempts(request, sizes!);
        const refused$ = of<Result>({ delivery: { status: 'rejected', events: refused, bytes: 0 }, outcome: 'other' });
        return request.events.length > 0 ? concat(refused$, attempts(request, sizes!)) : refused$;
      }),
    );
  };

  /**
   * Events given up, reported one way whether a whole request or some records of an answer: the
   * sink hears of the failure, it is logged and counted, and the events end with `status`.
   */
  const givenUp = (err: unknown, evs: readonly Event[], status: DeliveryStatus, outcome: Outcome): Result => {
    parts.attemptFailed?.(err instanceof ResponseError ? err.reason : err);
    events.failed(err, evs.length, status);
    return { delivery: { status, events: evs, bytes: 0 }, outcome };
  };

  /**
   * One request through its attempts; emits the deliveries of partial answers as they come, per
   * answer the delivered part first, then the refused part.
   */
  const attempts = (first: R, sizes: BatchSizes): Observable<Result> =>
    defer(() => {
      let current = first;
      const partials = new Subject<Result>();
      let lastResponse: Res | undefined;
      const attempt = defer(() => {
        const abort = new AbortController();
        let settled = false;
        const answer = parts.send(current, abort.signal).finally(() => (settled = true));
        return from(answer).pipe(
          timeout({ first: timeoutMs, with: () => throwError(() => new TimeoutError()), scheduler }),
          map((res) => {
            const verdict = parts.classify(res, current);
            switch (verdict.kind) {
              case 'ok':
                lastResponse = res;
                return current;
              case 'partial': {
                // the service answered in time: every part of the answer is an ok sample for the concurrency controller
                const { delivered, refused, rest } = verdict;
                if (delivered.length > 0) partials.next({ delivery: { status: 'delivered', events: delivered, bytes: bytesOf(current, delivered, sizes) }, outcome: 'ok' });
                if (refused !== undefined && refused.events.length > 0) partials.next(givenUp(refused.reason, refused.events, 'rejected', 'ok'));
                current = rest;
                if (rest.events.length === 0) return undefined; // nothing left to send
                throw new ResponseError(verdict.error, true);
              }
              default:
                throw new ResponseError(verdict.error, verdict.kind === 'retry', verdict.status);
            }
          }),
          // only an unfinished attempt is aborted: aborting a finished one would cost the pooled connection
          finalize(() => settled || abort.abort()),
        );
      });
      const final$ = attempt.pipe(
        retryFibonacci(policy, scheduler),
        filter((done): done is R => done !== undefined),
        map((done): Result => {
          const delivered: Delivery = { status: 'delivered', events: done.events, bytes: done.bytes };
          if (!parts.confirm) return { delivery: delivered, outcome: 'ok' };
          const pending = parts.confirm(lastResponse as Res, done).then((status) => ({ ...delivered, status, bytes: status === 'delivered' ? done.bytes : 0 }));
          return { pending, outcome: 'ok' };
        }),
        catchError((err: unknown) => {
          const retriable = isRetriable(err);
          // back-pressure is a Retry outcome, a retriable error or a timeout (Vector's adaptive concurrency)
          return of(givenUp(err, current.events, statusOf(err, retriable), retriable ? 'backpressure' : 'other'));
        }),
        finalize(() => {
          partials.complete();
          parts.finished?.(first);
          if (current !== first) parts.finished?.(current);
        }),
      );
      return merge(partials, final$);
    });

  return (source) =>
    defer(() => {
      const rejected$ = new Subject<Delivery>();
      const reject = (event: Event) => {
        // a worker's record refused here is read no more: its answer's memory may go back (docs/threads.md)
        if (event instanceof EncodedLogEvent) event.records?.done(1);
        rejected$.next({ status: 'rejected', events: [event], bytes: 0 });
      };
      /** Encodes a batch once; an event that cannot be encoded, is too large or has no key is rejected alone. */
      const encodeBatch = (batch: EventBatch): E[] => {
        // events a worker encoded are their own items: while every item is its event, the batch is the result
        let out: E[] | undefined;
        for (let i = 0; i < batch.length; i++) {
          const e = batch[i]!;
          let item: E;
          try {
            item = parts.encode(e);
          } catch (err) {
            events.encodeFailed(err);
            reject(e);
            out ??= batch.slice(0, i) as unknown as E[];
            continue;
          }
          if (opts.rejectOversize && item.size > limits.maxBytes) {
            events.eventTooLarge(item.size, limits.maxBytes);
            reject(e);
            out ??= batch.slice(0, i) as unknown as E[];
          } else if (out !== undefined) out.push(item);
          else if ((item as unknown) !== e) {
            out = batch.slice(0, i) as unknown as E[];
            out.push(item);
          }
        }
        return out ?? (batch as unknown as E[]);
      };
      /** Sets each item's partition key; an event whose key does not render is rejected alone. */
      const keyBatch = (items: E[]): E[] => {
        const partition = parts.partition!;
        let out: E[] | undefined;
        for (let i = 0; i < items.length; i++) {
          const item = items[i]!;
          try {
            item.key = renderedKey(item.event) ?? partition(item);
            out?.push(item);
          } catch (err) {
            if (!(err instanceof TemplateError)) throw err;
            events.templateFailed(err);
            reject(item.event);
            out ??= items.slice(0, i);
          }
        }
        return out ?? items;
      };
      const sizeOf = (x: E) => x.size;
      const batches$: Observable<E[]> = parts.partition
        ? source.pipe(
            map((batch) => keyBatch(encodeBatch(batch))),
            rebatchBy(limits, sizeOf, (x: E) => x.key, scheduler),
            map((p) => p.items),
          )
        : source.pipe(map(encodeBatch), rebatch(limits, sizeOf, scheduler));
      const sent$ = batches$.pipe(
        tap({ complete: () => rejected$.complete(), error: () => rejected$.complete() }),
        // ahead: the next batch builds while every permit is out, so a freed permit never waits for input
        inFlight(deliver, { controller, demand: ctx.demand, ahead: 1, rate, scheduler, outcome: (r) => r.outcome }),
        // a confirmation that comes later does not hold the concurrency permit
        mergeMap((r) => (r.pending ? from(r.pending) : of(r.delivery!))),
      );
      return merge(rejected$, sent$).pipe(finalize(() => void parts.close?.()));
    });
}
