import { expect } from 'chai';
import { TimeoutError, defer, timeout } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { FixedConcurrency } from '../../operators/concurrency.js';
import { inFlight } from '../../operators/in-flight.js';
import { RateLimiter } from '../../operators/rate-limit.js';
import { retryFibonacci } from '../../operators/retry-fibonacci.js';

/** Vector's request layering built from the operators: rate limit, permit, retry, timeout per attempt. */
describe('operators: the request layer composed', () => {
  let rx: TestScheduler;
  beforeEach(() => {
    rx = new TestScheduler((a, e) => {
      expect(a).to.deep.equal(e);
    });
  });

  it('times out each attempt, retries it, and keeps the permit through the backoff', () =>
    rx.run(({ cold, hot, expectObservable }) => {
      const attempts = new Map<string, number>();
      // a's first attempt stalls; every other attempt answers after 2 ms
      const send = (x: string) => {
        const n = attempts.get(x) ?? 0;
        attempts.set(x, n + 1);
        return x === 'a' && n === 0 ? cold<string>('-') : cold('--(r|)', { r: x });
      };
      const policy = { attempts: 5, initialMs: 10, maxMs: 100, isRetriable: (e: unknown) => e instanceof TimeoutError };
      const layer = inFlight(
        (x: string) =>
          defer(() => send(x)).pipe(
            timeout({ first: 5, scheduler: rx }),
            retryFibonacci(policy, rx),
          ),
        { controller: new FixedConcurrency(1, rx), scheduler: rx },
      );
      // a: timeout at 5, wait 10, retry at 15 answers at 17; b gets the permit only then
      expectObservable(hot('(ab)----------------------|').pipe(layer)).toBe('-----------------a-b------|');
    }));

  it('retries do not pass the rate limiter again', () =>
    rx.run(({ cold, hot, expectObservable }) => {
      let n = 0;
      const policy = { attempts: 3, initialMs: 3, maxMs: 3, isRetriable: () => true };
      const layer = inFlight((x: string) => defer(() => (x === 'a' && n++ < 2 ? cold<string>('#') : cold('-(r|)', { r: x }))).pipe(retryFibonacci(policy, rx)), {
        controller: new FixedConcurrency(5, rx),
        rate: new RateLimiter(1, 20, rx),
        scheduler: rx,
      });
      // a retries at 3 and 6 inside its window; b waits for the next window at 20
      expectObservable(hot('(ab)-----------------------|').pipe(layer)).toBe('-------a-------------b-----|');
    }));
});
