import { expect } from 'chai';
import { VirtualTimeScheduler } from 'rxjs';
import * as v from 'valibot';
import { EndpointPool, FailoverRing, UNHEALTHY_AFTER, healthcheckTargets, routedRequestOptions, routingSchema, singleOrRouting } from '../../../../connectors/shared/routing/index.js';

const routing = (over: Record<string, unknown> = {}) => v.parse(routingSchema(v.string()), { endpoints: ['a', 'b', 'c'], ...over })!;
const health = (initial = 1, max = 3600) => ({ retry_initial_backoff_secs: initial, retry_max_duration_secs: max });

/** A scheduler whose clock the test sets. */
function clock() {
  const s = new VirtualTimeScheduler();
  let t = 0;
  s.now = () => t;
  return { scheduler: s, at: (ms: number) => (t = ms) };
}

/** One attempt that reports `ok`; returns the endpoint used. */
const attempt = <T>(pool: EndpointPool<T>, ok: boolean | undefined): T => {
  const lease = pool.pick();
  lease.done(ok);
  return lease.endpoint;
};
const failTimes = (pool: EndpointPool<string>, n: number) => Array.from({ length: n }, () => attempt(pool, false));

describe('connectors/shared/routing', () => {
  it("has Vector's names and defaults: load_balance, health 1 s first backoff, at most an hour", () => {
    expect(routing()).to.deep.equal({ endpoints: ['a', 'b', 'c'], strategy: 'load_balance', health: health() });
    expect(v.safeParse(routingSchema(v.string()), { endpoints: ['a'], strategy: 'random' }).success).to.equal(false);
    expect(v.safeParse(routingSchema(v.string()), { endpoints: [] }).issues?.[0]?.message).to.equal('must contain at least one endpoint');
    expect(singleOrRouting('address', true, true)?.message).to.match(/mutually exclusive/);
    expect(singleOrRouting('address', false, false)?.message).to.equal('no endpoint configured: set address or routing.endpoints');
    expect(singleOrRouting('address', true, false)).to.equal(undefined);
  });

  it('health checks every endpoint when load balancing, the first with a failover strategy', () => {
    expect(healthcheckTargets(routing())).to.deep.equal(['a', 'b', 'c']);
    expect(healthcheckTargets(routing({ strategy: 'failover' }))).to.deep.equal(['a']);
    expect(healthcheckTargets(routing({ strategy: 'failover_primary' }))).to.deep.equal(['a']);
  });

  it('failover strategies send one request at a time, each call with time for every attempt', () => {
    const request = { timeout_secs: 10, concurrency: 'adaptive' as unknown };
    expect(routedRequestOptions(request, routing())).to.equal(request);
    expect(routedRequestOptions(request, routing({ strategy: 'failover' }))).to.deep.equal({ timeout_secs: 40, concurrency: 1 });
    expect(routedRequestOptions(request, routing({ strategy: 'failover_primary' }))).to.deep.equal({ timeout_secs: 50, concurrency: 1 });
  });

  describe('load_balance', () => {
    it('spreads requests in flight over every endpoint', () => {
      const pool = new EndpointPool(['a', 'b', 'c'], health(), clock().scheduler);
      const counts: Record<string, number> = {};
      for (const l of Array.from({ length: 6 }, () => pool.pick())) counts[l.endpoint] = (counts[l.endpoint] ?? 0) + 1;
      expect(counts).to.deep.equal({ a: 2, b: 2, c: 2 });
    });

    it('takes turns when nothing is in flight', () => {
      const pool = new EndpointPool(['a', 'b', 'c'], health(), clock().scheduler);
      expect([0, 1, 2, 3, 4, 5].map(() => attempt(pool, true))).to.deep.equal(['a', 'b', 'c', 'a', 'b', 'c']);
    });

    it(`takes an endpoint out after ${UNHEALTHY_AFTER} failures in a row, and not after fewer`, () => {
      const active: number[] = [];
      const pool = new EndpointPool(['a'], health(), clock().scheduler, String, { active: (n) => active.push(n) });
      failTimes(pool, UNHEALTHY_AFTER - 1);
      expect(pool.active).to.equal(1);
      attempt(pool, true); // a success resets the count
      failTimes(pool, UNHEALTHY_AFTER - 1);
      expect(pool.active).to.equal(1);
      failTimes(pool, 1);
      expect(pool.active).to.equal(0);
      expect(active).to.deep.equal([1, 0]);
    });

    it('probes an endpoint once its backoff is over, doubling the backoff after a failed probe, up to the maximum', () => {
      const { scheduler, at } = clock();
      const pool = new EndpointPool(['a', 'b'], health(2, 5), scheduler);
      // a fails five times (b's answers in between do not reset a's count)
      for (let i = 0; i < UNHEALTHY_AFTER * 2; i++) {
        const lease = pool.pick();
        lease.done(lease.endpoint === 'b');
      }
      expect(pool.active).to.equal(1); // a is out until 2000
      at(1999);
      expect([attempt(pool, true), attempt(pool, true)]).to.deep.equal(['b', 'b']);
      at(2000);
      const leases = [pool.pick(), pool.pick(), pool.pick()];
      // a gets one probe, and only one while it is out
      expect(leases.map((l) => l.endpoint).sort()).to.deep.equal(['a', 'b', 'b']);
      for (const l of leases) l.done(l.endpoint === 'b'); // the probe fails: out until 2000 + 4000
      at(5999);
      expect(attempt(pool, true)).to.equal('b');
      at(6000);
      const second = [pool.pick(), pool.pick()];
      expect(second.map((l) => l.endpoint).sort()).to.deep.equal(['a', 'b']);
      for (const l of second) l.done(l.endpoint === 'b'); // out until 6000 + 5000, the maximum
      at(10_999);
      expect(attempt(pool, true)).to.equal('b');
      at(11_000);
      const third = [pool.pick(), pool.pick()];
      expect(third.map((l) => l.endpoint).sort()).to.deep.equal(['a', 'b']);
      for (const l of third) l.done(true);
      expect(pool.active).to.equal(2);
    });

    it('with every endpoint out, an attempt still goes to the one due first (it fails fast and is retried, never dropped)', () => {
      const { scheduler, at } = clock();
      const pool = new EndpointPool(['a', 'b'], health(), scheduler);
      failTimes(pool, UNHEALTHY_AFTER * 2); // both out until 1000
      expect(pool.active).to.equal(0);
      at(500);
      expect(attempt(pool, true)).to.equal('a');
      expect(pool.active).to.equal(1);
    });
  });

  describe('failover and failover_primary', () => {
    it('failover: each call tries the endpoints once, around the list from the one in use, which moves on as they fail', () => {
      const ring = new FailoverRing(['a', 'b', 'c'], false);
      expect(ring.order()).to.deep.equal([0, 1, 2]);
      ring.failed(0, 1);
      expect(ring.current).to.equal(1);
      expect(ring.order()).to.deep.equal([1, 2, 0]);
      ring.failed(0, 1); // not the endpoint in use: a late answer of an older call moves nothing
      expect(ring.current).to.equal(1);
      ring.failed(1, undefined);
      expect(ring.order()).to.deep.equal([2, 0, 1]);
    });

    it('failover_primary: after a failure the list is tried from its first endpoint again', () => {
      const ring = new FailoverRing(['a', 'b', 'c'], true);
      expect(ring.order()).to.deep.equal([0, 0, 1, 2]);
      ring.failed(0, 0);
      ring.failed(0, 1);
      expect(ring.current).to.equal(1);
      expect(ring.order()).to.deep.equal([1, 0, 1, 2]);
      ring.failed(1, 0); // b fails: the next call starts with the primary
      expect(ring.current).to.equal(0);
    });
  });
});
