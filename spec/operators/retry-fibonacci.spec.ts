import { expect } from 'chai';
import { defer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { fibonacciDelay, retryFibonacci } from '../../operators/retry-fibonacci.js';

describe('operators/retry-fibonacci', () => {
  let rx: TestScheduler;
  beforeEach(() => {
    rx = new TestScheduler((a, e) => {
      expect(a).to.deep.equal(e);
    });
  });

  it('follows 1, 1, 2, 3, 5, 8 times the initial wait, capped', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => fibonacciDelay(n, 10, 1000))).to.deep.equal([10, 10, 20, 30, 50, 80, 130]);
    expect([1, 2, 3, 4, 5, 6].map((n) => fibonacciDelay(n, 10, 35))).to.deep.equal([10, 10, 20, 30, 35, 35]);
  });

  it('waits 10, 10, 20 ms between attempts, then gives up', () =>
    rx.run(({ cold, expectObservable, expectSubscriptions }) => {
      const request = cold('#', undefined, new Error('503'));
      const policy = { attempts: 3, initialMs: 10, maxMs: 1000, isRetriable: () => true };
      expectObservable(request.pipe(retryFibonacci(policy, rx))).toBe('40ms #', undefined, new Error('503'));
      expectSubscriptions(request.subscriptions).toBe(['(^!)', '10ms (^!)', '20ms (^!)', '40ms (^!)']);
    }));

  it('caps each wait at the maximum', () =>
    rx.run(({ cold, expectObservable, expectSubscriptions }) => {
      const request = cold('#');
      const policy = { attempts: 4, initialMs: 10, maxMs: 15, isRetriable: () => true };
      expectObservable(request.pipe(retryFibonacci(policy, rx))).toBe('50ms #');
      expectSubscriptions(request.subscriptions).toBe(['(^!)', '10ms (^!)', '20ms (^!)', '35ms (^!)', '50ms (^!)']);
    }));

  it('does not retry what is not retriable', () =>
    rx.run(({ cold, expectObservable, expectSubscriptions }) => {
      const request = cold('-#', undefined, new Error('400'));
      const policy = { attempts: 5, initialMs: 10, maxMs: 1000, isRetriable: (e: unknown) => (e as Error).message !== '400' };
      expectObservable(request.pipe(retryFibonacci(policy, rx))).toBe('-#', undefined, new Error('400'));
      expectSubscriptions(request.subscriptions).toBe('^!');
    }));

  it('stops at the first success', () =>
    rx.run(({ cold, expectObservable }) => {
      let n = 0;
      const policy = { attempts: 10, initialMs: 10, maxMs: 1000, isRetriable: () => true };
      const attempt = defer(() => (n++ < 2 ? cold<string>('-#') : cold<string>('-(x|)')));
      // fails at 1, waits 10; fails at 12, waits 10; succeeds at 23
      expectObservable(attempt.pipe(retryFibonacci(policy, rx))).toBe('23ms (x|)');
    }));

  it('never retries with 0 attempts; full jitter draws within [1, wait]', () =>
    rx.run(({ cold, expectObservable, expectSubscriptions }) => {
      const request = cold('#');
      expectObservable(request.pipe(retryFibonacci({ attempts: 0, initialMs: 10, maxMs: 10, isRetriable: () => true }, rx))).toBe('#');
      const jittered = cold('#');
      const policy = { attempts: 2, initialMs: 100, maxMs: 1000, isRetriable: () => true, jitter: 'full' as const, random: () => 0.5 };
      expectObservable(jittered.pipe(retryFibonacci(policy, rx))).toBe('102ms #');
      expectSubscriptions(jittered.subscriptions).toBe(['(^!)', '51ms (^!)', '102ms (^!)']);
    }));
});
