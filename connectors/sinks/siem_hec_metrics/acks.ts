/**
 * Indexer acknowledgements (Splunk HEC, as Vector polls them). A 2xx answer to an event request
 * carries an `ackId`; the request's events are delivered only once the collector reports that id
 * indexed. One poller per sink asks for every pending id each `query_interval` seconds, at most
 * `retry_limit` times per id; {@link AckSlots} bounds the requests that may await an id at once.
 */
import type { SchedulerLike, Subscription } from 'rxjs';
import type { DeliveryStatus } from '../../../lib/event.js';
import type { HttpResponse } from '../../../lib/net/http-client.js';

/** What one acknowledgement query told. */
export type AckAnswer =
  /** 2xx with `{"acks":{"<id>":true|false}}`: the ids reported true. */
  | { readonly kind: 'acks'; readonly acked: ReadonlySet<number> }
  /** 4xx, or 2xx with a body that is not an answer: the collector cannot acknowledge on this channel. */
  | { readonly kind: 'unusable'; readonly reason: string }
  /** 5xx, a transport error or a timeout: ask again next time. */
  | { readonly kind: 'failed'; readonly reason: string };

/** The ack id of an event request's answer (`ackId`, or `ack_id`); undefined without one; `invalid` for a body that is not JSON. */
export function ackIdOf(body: string): number | undefined | 'invalid' {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'invalid';
  }
  if (parsed === null || typeof parsed !== 'object') return 'invalid';
  const o = parsed as { ackId?: unknown; ack_id?: unknown };
  const id = o.ackId ?? o.ack_id;
  return typeof id === 'number' && Number.isInteger(id) && id >= 0 ? id : undefined;
}

/** Reads the answer to an acknowledgement query. */
export function readAckAnswer(res: Pick<HttpResponse, 'status' | 'body'>): AckAnswer {
  if (res.status >= 500 || res.status === 429) return { kind: 'failed', reason: `HTTP ${res.status}` };
  if (res.status < 200 || res.status >= 300) return { kind: 'unusable', reason: `HTTP ${res.status}${res.body ? `: ${res.body.slice(0, 200)}` : ''}` };
  let acks: unknown;
  try {
    acks = (JSON.parse(res.body) as { acks?: unknown } | null)?.acks;
  } catch {
    acks = undefined;
  }
  if (acks === null || typeof acks !== 'object' || Array.isArray(acks)) return { kind: 'unusable', reason: `answer without acks: ${res.body.slice(0, 200)}` };
  const acked = new Set<number>();
  for (const [id, done] of Object.entries(acks as Record<string, unknown>)) if (done === true) acked.add(Number(id));
  return { kind: 'acks', acked };
}

/** The poller's timings (`query_interval`, `retry_limit`, `request.timeout_secs`). */
export interface AckPollerOptions {
  readonly queryIntervalMs: number;
  readonly retryLimit: number;
  /** Time limit of one query. */
  readonly timeoutMs: number;
}

/** What the poller reports besides the statuses it settles. */
export interface AckPollerEvents {
  /** A query that failed (`failed`) or showed the collector cannot acknowledge (`unusable`). */
  queryFailed(answer: AckAnswer & { kind: 'failed' | 'unusable' }, pending: number): void;
}

interface PendingAck {
  /** Queries left before the id is given up. */
  remaining: number;
  readonly waiters: ((status: DeliveryStatus) => void)[];
}

/**
 * Waits for ack ids. Timers run on `scheduler` (virtual time in tests); a query goes out each
 * interval while any id is pending, never two at once.
 */
export class AckPoller {
  private readonly pending = new Map<number, PendingAck>();
  private timer: Subscription | undefined = undefined;
  private querying = false;
  private closed = false;

  constructor(
    private readonly opts: AckPollerOptions,
    /** One query for `ids`; rejects on a transport error. */
    private readonly query: (ids: number[], signal: AbortSignal) => Promise<Pick<HttpResponse, 'status' | 'body'>>,
    private readonly scheduler: SchedulerLike,
    private readonly events: AckPollerEvents,
  ) {}

  /** Ids awaiting their acknowledgement. */
  get size(): number {
    return this.pending.size;
  }

  /**
   * Resolves `delivered` once the id is reported indexed, `errored` when `retry_limit` queries
   * did not report it, `delivered` when the collector turns out unable to acknowledge at all.
   */
  wait(id: number): Promise<DeliveryStatus> {
    return new Promise((resolve) => {
      const p = this.pending.get(id);
      // a collector that restarted may hand out an id again: both requests wait for it
      if (p) p.waiters.push(resolve);
      else this.pending.set(id, { remaining: this.opts.retryLimit, waiters: [resolve] });
      this.arm();
    });
  }

  /** Stops querying; ids still pending stay unsettled (the sink was torn down). */
  close(): void {
    this.closed = true;
    this.timer?.unsubscribe();
    this.timer = undefined;
  }

  private arm(): void {
    if (this.timer || this.closed) return;
    this.timer = this.scheduler.schedule(() => {
      this.timer = undefined;
      if (this.pending.size === 0) return;
      // one query every query_interval while ids are pending
      this.arm();
      if (!this.querying) void this.tick();
    }, this.opts.queryIntervalMs);
  }

  private async tick(): Promise<void> {
    const ids = [...this.pending.keys()];
    // as in Vector, every query counts against each id it asks for
    for (const p of this.pending.values()) p.remaining--;
    this.querying = true;
    const abort = new AbortController();
    const limit = this.scheduler.schedule(() => abort.abort(), this.opts.timeoutMs);
    let answer: AckAnswer;
    try {
      answer = readAckAnswer(await this.query(ids, abort.signal));
    } catch (err) {
      answer = { kind: 'failed', reason: abort.signal.aborted ? `no answer within ${this.opts.timeoutMs} ms` : err instanceof Error ? err.message : String(err) };
    } finally {
      limit.unsubscribe();
      this.querying = false;
    }
    if (this.closed) return;
    if (answer.kind === 'acks') {
      for (const id of ids) if (answer.acked.has(id)) this.settle(id, 'delivered');
    } else {
      this.events.queryFailed(answer, this.pending.size);
      if (answer.kind === 'unusable') {
        // the collector cannot acknowledge; the 2xx answers are all there is
        for (const id of [...this.pending.keys()]) this.settle(id, 'delivered');
        return;
      }
    }
    for (const [id, p] of [...this.pending]) if (p.remaining <= 0) this.settle(id, 'errored');
    if (this.pending.size === 0) {
      this.timer?.unsubscribe();
      this.timer = undefined;
    }
  }

  private settle(id: number, status: DeliveryStatus): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    for (const w of p.waiters) w(status);
  }
}

/**
 * `max_pending_acks`: a request takes a slot before it is sent and gives it back when its events
 * settle, so at most that many requests are sent or awaiting an ack; the next one waits (and holds
 * its concurrency permit, which stops the sink from pulling more: backpressure, not memory).
 */
export class AckSlots {
  private used = 0;
  private readonly holders = new WeakSet<object>();
  private readonly queue: (() => void)[] = [];

  constructor(private readonly max: number) {}

  /** Slots taken (sent or awaiting an acknowledgement). */
  get inUse(): number {
    return this.used;
  }

  /** Takes a slot for `holder`, waiting while none is free. */
  acquire(holder: object): Promise<void> {
    if (this.used < this.max) {
      this.used++;
      this.holders.add(holder);
      return Promise.resolve();
    }
    return new Promise((resolve) =>
      this.queue.push(() => {
        this.holders.add(holder);
        resolve();
      }),
    );
  }

  /** Gives back the slot of `holder`, if it holds one; the longest waiter gets it. */
  release(holder: object): void {
    if (!this.holders.delete(holder)) return;
    const next = this.queue.shift();
    if (next) next();
    else this.used--;
  }
}
