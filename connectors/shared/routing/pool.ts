/**
 * `load_balance`: the endpoints of one sink as a set of circuit breakers (Vector's health service):
 * an endpoint with five failed requests in a row is taken out; after a backoff (the initial one,
 * doubling up to the maximum) one request probes it, and a success brings it back. Time is the
 * scheduler's, so the breaker runs in virtual time in tests.
 */
import type { SchedulerLike } from 'rxjs';
import type { RoutingConfig } from './options.js';

/** Failures in a row that take an endpoint out (Vector's UNHEALTHY_AMOUNT_OF_ERRORS). */
export const UNHEALTHY_AFTER = 5;

/** What one attempt said about its endpoint: healthy, unhealthy, or nothing (a 4xx, say). */
export type Health = boolean | undefined;

/** One request's hold on an endpoint; `done` must be called once with what the attempt said. */
export interface Lease<T> {
  readonly endpoint: T;
  done(health: Health): void;
}

export interface PoolHooks {
  /** The number of endpoints taking requests changed (Vector's `active_endpoints` gauge). */
  active?(count: number): void;
  /** An endpoint was taken out or brought back. */
  changed?(endpoint: string, healthy: boolean): void;
}

class Member<T> {
  failures = 0;
  inFlight = 0;
  /** While out: when it may be probed. */
  outUntil = 0;
  out = false;
  probing = false;
  backoffMs: number;
  constructor(
    readonly endpoint: T,
    readonly name: string,
    readonly index: number,
    initialMs: number,
  ) {
    this.backoffMs = initialMs;
  }
}

export class EndpointPool<T> {
  private readonly members: Member<T>[];
  private readonly initialMs: number;
  private readonly maxMs: number;
  private cursor = 0;
  private activeCount: number;

  constructor(
    endpoints: readonly T[],
    health: RoutingConfig['health'],
    private readonly scheduler: SchedulerLike,
    nameOf: (endpoint: T) => string = String,
    private readonly hooks: PoolHooks = {},
  ) {
    if (endpoints.length === 0) throw new Error('an endpoint pool needs at least one endpoint');
    this.initialMs = health.retry_initial_backoff_secs * 1000;
    this.maxMs = Math.max(this.initialMs, health.retry_max_duration_secs * 1000);
    this.members = endpoints.map((e, i) => new Member(e, nameOf(e), i, this.initialMs));
    this.activeCount = endpoints.length;
    hooks.active?.(this.activeCount);
  }

  get size(): number {
    return this.members.length;
  }

  /** Endpoints taking requests now (not out). */
  get active(): number {
    return this.activeCount;
  }

  /** Picks the endpoint for one attempt. When every endpoint is out, the one due first is tried anyway: the attempt fails fast and the request is retried, never dropped. */
  pick(): Lease<T> {
    const now = this.scheduler.now();
    const member = this.choose(now) ?? this.dueFirst();
    if (member.out && !member.probing && now >= member.outUntil) member.probing = true;
    member.inFlight++;
    let settled = false;
    return {
      endpoint: member.endpoint,
      done: (health) => {
        if (settled) return;
        settled = true;
        member.inFlight--;
        this.report(member, health);
      },
    };
  }

  /** An endpoint may take this attempt: in, or out with its backoff over and no probe in flight. */
  private usable(m: Member<T>, now: number): boolean {
    return !m.out || (!m.probing && now >= m.outUntil);
  }

  /** The healthy endpoint with the fewest requests in flight, ties in turn; an endpoint that fails keeps its turn until it is taken out, so it is back in the rotation as soon as it answers. */
  private choose(now: number): Member<T> | undefined {
    const ms = this.members;
    let best: Member<T> | undefined;
    for (let i = 0; i < ms.length; i++) {
      const m = ms[(this.cursor + i) % ms.length]!;
      if (this.usable(m, now) && (best === undefined || m.inFlight < best.inFlight)) best = m;
    }
    this.cursor = (this.cursor + 1) % ms.length;
    return best;
  }

  private dueFirst(): Member<T> {
    let first = this.members[0]!;
    for (const m of this.members) if (m.outUntil < first.outUntil) first = m;
    return first;
  }

  private report(m: Member<T>, health: Health): void {
    if (health === undefined) {
      // no verdict: a probe lets the next attempt probe again
      m.probing = false;
      return;
    }
    const now = this.scheduler.now();
    if (health) {
      m.failures = 0;
      m.probing = false;
      if (m.out) {
        m.out = false;
        m.backoffMs = this.initialMs;
        this.setActive(+1);
        this.hooks.changed?.(m.name, true);
      }
      return;
    }
    m.failures++;
    if (m.out) {
      if (!m.probing) return; // an attempt that was already out when it was taken out
      m.probing = false;
      m.backoffMs = Math.min(m.backoffMs * 2, this.maxMs);
      m.outUntil = now + m.backoffMs;
      return;
    }
    if (m.failures >= UNHEALTHY_AFTER) {
      m.out = true;
      m.outUntil = now + m.backoffMs;
      this.setActive(-1);
      this.hooks.changed?.(m.name, false);
    }
  }

  private setActive(delta: number): void {
    this.activeCount += delta;
    this.hooks.active?.(this.activeCount);
  }
}

/**
 * `failover` and `failover_primary` (Vector's): one endpoint in use at a time. A call tries the
 * endpoint in use, and when it fails moves on: `failover` around the list from there, each
 * endpoint once; `failover_primary` through the list from its first endpoint, so the sink returns
 * to the primary at the first failure after it came back. The endpoint in use moves along with
 * the call's failures and stays where the call succeeded.
 */
export class FailoverRing<T> {
  private active = 0;
  constructor(
    readonly endpoints: readonly T[],
    private readonly primary: boolean,
  ) {
    if (endpoints.length === 0) throw new Error('a failover ring needs at least one endpoint');
  }

  /** The endpoint in use. */
  get current(): number {
    return this.active;
  }

  /** The endpoint indices one call tries, in order. */
  order(): number[] {
    const n = this.endpoints.length;
    const from = this.active;
    return this.primary ? [from, ...Array.from({ length: n }, (_, i) => i)] : Array.from({ length: n }, (_, i) => (from + i) % n);
  }

  /** Endpoint `index` failed; `next` is the one the call tries after it. The endpoint in use moves on only if it was the one that failed. */
  failed(index: number, next: number | undefined): void {
    if (this.active !== index) return;
    this.active = next ?? (this.primary ? 0 : (index + 1) % this.endpoints.length);
  }
}
