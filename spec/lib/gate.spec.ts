import { expect } from 'chai';
import { TestScheduler } from 'rxjs/testing';
import { GateController, AllGate, gateFrom, pullWhile } from '../../lib/gate.js';
import { timer } from 'rxjs';

describe('gates', () => {
  let rx: TestScheduler;
  beforeEach(() => {
    rx = new TestScheduler((a, e) => {
      expect(a).to.deep.equal(e);
    });
  });

  it('pullWhile stops pulling while the gate is closed and resumes when it opens', () =>
    rx.run(({ cold, hot, expectObservable }) => {
      const gate = gateFrom(hot('---c------o', { c: false, o: true }));
      let n = 0;
      expectObservable(pullWhile(() => cold('-(x|)', { x: n++ }), gate), '^-------------!').toBe('-abc-------def', { a: 0, b: 1, c: 2, d: 3, e: 4, f: 5 });
    }));

  it('pullWhile skips empty polls (undefined) without emitting', () =>
    rx.run(({ cold, expectObservable }) => {
      let n = 0;
      const gate = new GateController(true);
      expectObservable(pullWhile(() => cold('-(x|)', { x: n++ % 2 === 0 ? n : undefined }), gate), '^-----!').toBe('-a-c-e', { a: 1, c: 3, e: 5 });
    }));

  it('pullWhile with a pace waits for the pace, then for the gate, before the next read', () =>
    rx.run(({ cold, hot, expectObservable }) => {
      // the gate closes at 1 and opens at 6: the read due at 3 (after a pace of 3) waits until 6
      const gate = gateFrom(hot('-c----o', { c: false, o: true }), true);
      let n = 0;
      expectObservable(pullWhile(() => cold('(x|)', { x: n++ }), gate, () => timer(3)), '^---------!').toBe('a-----b--c', { a: 0, b: 1, c: 2 });
    }));

  it('AllGate is open only while every member is open, and follows member changes', () => {
    const a = new GateController(true);
    const b = new GateController(true);
    const all = new AllGate();
    const seen: boolean[] = [];
    all.open$.subscribe((s) => seen.push(s));
    all.setMembers([a, b]);
    b.close();
    expect(all.isOpen).to.equal(false);
    all.setMembers([a]);
    expect(all.isOpen).to.equal(true);
    a.close();
    expect(all.isOpen).to.equal(false);
    a.open();
    expect(seen).to.deep.equal([true, false, true, false, true]);
  });
});
