import { expect } from 'chai';
import { VirtualTimeScheduler } from 'rxjs';
import * as v from 'valibot';
import { EndpointPool, UNHEALTHY_AFTER, distributionSchema } from '../../../../connectors/shared/distribution/index.js';

const config = (over: Record<string, unknown> = {}) => v.parse(distributionSchema(), over);

/** A scheduler whose clock the test sets. */
function clock() {
  const s = new VirtualTimeScheduler();
  let t = 0;
  s.now = () => t;
  return { scheduler: s, at: (ms: number) => (t = ms) };
}

/** Sends one attempt and reports `health` for it; returns the endpoint used. */
const attempt = <T>(pool: EndpointPool<T>, health: boolean | undefined): T => {
  const lease = pool.pick();
  lease.done(health);
  return lease.endpoint;
};

const failTimes = (pool: EndpointPool<string>, n: number) => {
  const used: string[] = [];
  for (let i = 0; i < n; i++) used.push(attempt(pool, false));
  return used;
};

describe('connectors/shared/distribution: the endpoint pool', () => {
  it('has Vector\'s defaults: load balancing, 1 s first backoff, at most an hour', () => {
    expect(config()).to.deep.equal({ strategy: 'load_balance', retry_initial_backoff_secs: 1, retry_max_duration_secs: 3600 });
    expect(v.safeParse(distributionSchema(), { strategy: 'random' }).success).to.equal(false);
  });

  it('load_balance spreads requests in flight over every endpoint', () => {
    const { scheduler } = clock();
    const pool = new EndpointPool(['a', 'b', 'c'], config(), scheduler);
    const leases = Array.from({ length: 6 }, () => pool.pick());
    const counts = leases.reduce<Record<string, number>>((m, l) => ({ ...m, [l.endpoint]: (m[l.endpoint] ?? 0) + 1 }), {});
    expect(counts).to.deep.equal({ a: 2, b: 2, c: 2 });
  });

  it('load_balance takes turns when nothing is in flight', () => {
    const { scheduler } = clock();
    const pool = new EndpointPool(['a', 'b', 'c'], config(), scheduler);
    expect([0, 1, 2, 3, 4, 5].map(() => attempt(pool, true))).to.deep.equal(['a', 'b', 'c', 'a', 'b', 'c']);
  });

  it(`takes an endpoint out after ${UNHEALTHY_AFTER} failures in a row, and not after fewer`, () => {
    const { scheduler } = clock();
    const active: number[] = [];
    const pool = new EndpointPool(['a'], config(), scheduler, String, { active: (n) => active.push(n) });
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
    const pool = new EndpointPool(['a', 'b'], config({ strategy: 'primary', retry_initial_backoff_secs: 2, retry_max_duration_secs: 5 }), scheduler);
    failTimes(pool, UNHEALTHY_AFTER); // a is out until 2000
    at(1999);
    expect(attempt(pool, true)).to.equal('b');
    at(2000);
    const probe = pool.pick();
    expect(probe.endpoint).to.equal('a');
    // while the probe is out, others go to b
    expect(attempt(pool, true)).to.equal('b');
    probe.done(false); // out until 2000 + 4000
    at(5999);
    expect(attempt(pool, true)).to.equal('b');
    at(6000);
    expect(attempt(pool, false)).to.equal('a'); // out until 6000 + 5000 (the maximum)
    at(10_999);
    expect(attempt(pool, true)).to.equal('b');
    at(11_000);
    expect(attempt(pool, true)).to.equal('a'); // back
    expect(pool.active).to.equal(2);
    expect(attempt(pool, true)).to.equal('a');
  });

  it('primary returns to the first endpoint once it is healthy again; failover stays where it moved', () => {
    for (const strategy of ['primary', 'failover'] as const) {
      const { scheduler, at } = clock();
      const pool = new EndpointPool(['a', 'b', 'c'], config({ strategy }), scheduler);
      expect(attempt(pool, true)).to.equal('a');
      expect(attempt(pool, true)).to.equal('a');
      failTimes(pool, UNHEALTHY_AFTER);
      expect(attempt(pool, true)).to.equal('b');
      at(1000);
      // primary probes a (and stays with it); failover has no reason to leave b
      const after = [attempt(pool, true), attempt(pool, true), attempt(pool, true)];
      expect(after, strategy).to.deep.equal(strategy === 'primary' ? ['a', 'a', 'a'] : ['b', 'b', 'b']);
    }
  });

  it('failover moves on to the next endpoint in list order, wrapping around', () => {
    const { scheduler } = clock();
    const pool = new EndpointPool(['a', 'b', 'c'], config({ strategy: 'failover', retry_initial_backoff_secs: 100 }), scheduler);
    failTimes(pool, UNHEALTHY_AFTER);
    expect(attempt(pool, true)).to.equal('b');
    failTimes(pool, UNHEALTHY_AFTER);
    expect(attempt(pool, true)).to.equal('c');
    failTimes(pool, UNHEALTHY_AFTER);
    expect(pool.active).to.equal(0);
  });

  it('with every endpoint out, an attempt still goes to the one due first (it fails fast and is retried, never dropped)', () => {
    const { scheduler, at } = clock();
    const pool = new EndpointPool(['a', 'b'], config({ strategy: 'primary' }), scheduler);
    failTimes(pool, UNHEALTHY_AFTER); // a out until 1000
    at(500);
    failTimes(pool, UNHEALTHY_AFTER); // b out until 1500
    expect(pool.active).to.equal(0);
    expect(attempt(pool, true)).to.equal('a');
    expect(pool.active).to.equal(1);
  });
});
