import { expect } from 'chai';
import { TestScheduler } from 'rxjs/testing';
import { batchBy, batchLimits, rebatch, rebatchBy } from '../../operators/batch-by.js';

describe('operators/batch-by', () => {
  let rx: TestScheduler;
  beforeEach(() => {
    rx = new TestScheduler((a, e) => {
      expect(a).to.deep.equal(e);
    });
  });
  const len = (s: string) => s.length;

  it('flushes at max_events', () =>
    rx.run(({ cold, expectObservable }) => {
      const limits = { maxEvents: 2, maxBytes: Infinity, timeoutMs: 100 };
      expectObservable(cold('abc|').pipe(batchBy(limits, len, rx))).toBe('-x-(y|)', { x: ['a', 'b'], y: ['c'] });
    }));

  it('flushes on the age of the oldest item, never an empty batch', () =>
    rx.run(({ cold, expectObservable }) => {
      const limits = { maxEvents: 10, maxBytes: Infinity, timeoutMs: 5 };
      // timer starts at the first item (frame 0), not at each item; nothing for the idle time after
      expectObservable(cold('ab------c-------|').pipe(batchBy(limits, len, rx))).toBe('-----x-------y--|', {
        x: ['a', 'b'],
        y: ['c'],
      });
    }));

  it('closes the open batch before an item that would overflow max_bytes', () =>
    rx.run(({ cold, expectObservable }) => {
      const limits = { maxEvents: 100, maxBytes: 5, timeoutMs: 100 };
      const v = { a: 'aa', b: 'bbb', c: 'cc', d: 'dddddddd' };
      // aa+bbb = 5 -> full; cc then dddddddd overflows -> cc flushed; dddddddd alone is a batch of one
      expectObservable(cold('abcd-----|', v).pipe(batchBy(limits, len, rx))).toBe('-x-(yz)--|', {
        x: ['aa', 'bbb'],
        y: ['cc'],
        z: ['dddddddd'],
      });
    }));

  it('re-slices incoming arrays and flushes the rest on completion', () =>
    rx.run(({ cold, expectObservable }) => {
      const limits = { maxEvents: 3, maxBytes: Infinity, timeoutMs: 50 };
      const src = cold('a-b|', { a: ['1', '2', '3', '4'], b: ['5'] });
      expectObservable(src.pipe(rebatch(limits, len, rx))).toBe('x--(y|)', { x: ['1', '2', '3'], y: ['4', '5'] });
    }));

  it('keeps one open batch per key with its own timer', () =>
    rx.run(({ cold, expectObservable }) => {
      const limits = { maxEvents: 2, maxBytes: Infinity, timeoutMs: 4 };
      const src = cold('a-b-c---|', { a: ['x1', 'y1'], b: ['x2'], c: ['y2'] });
      expectObservable(src.pipe(rebatchBy(limits, len, (s: string) => s[0]!, rx))).toBe('--p-q---|', {
        p: { key: 'x', items: ['x1', 'x2'] },
        q: { key: 'y', items: ['y1', 'y2'] },
      });
    }));

  it('flushes a partition on its own age', () =>
    rx.run(({ cold, expectObservable }) => {
      const limits = { maxEvents: 10, maxBytes: Infinity, timeoutMs: 3 };
      const src = cold('a-b------|', { a: ['x1'], b: ['y1'] });
      expectObservable(src.pipe(rebatchBy(limits, len, (s: string) => s[0]!, rx))).toBe('---p-q---|', {
        p: { key: 'x', items: ['x1'] },
        q: { key: 'y', items: ['y1'] },
      });
    }));

  it('derives limits from batch options (float seconds, missing = unlimited)', () => {
    expect(batchLimits({ timeout_secs: 0.25 })).to.deep.equal({ maxEvents: Infinity, maxBytes: Infinity, timeoutMs: 250 });
    expect(batchLimits({ max_events: 3, max_bytes: 9, timeout_secs: 1 })).to.deep.equal({ maxEvents: 3, maxBytes: 9, timeoutMs: 1000 });
  });

  it('passes errors through and cancels its timer on unsubscribe', () =>
    rx.run(({ cold, expectObservable }) => {
      const limits = { maxEvents: 10, maxBytes: Infinity, timeoutMs: 5 };
      expectObservable(cold('a-#').pipe(batchBy(limits, len, rx))).toBe('--#');
      expectObservable(cold('a------').pipe(batchBy(limits, len, rx)), '^--!').toBe('----');
    }));
});
