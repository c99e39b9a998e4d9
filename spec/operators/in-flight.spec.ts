import { expect } from 'chai';
import { Subject, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { GateController } from '../../lib/gate.js';
import { type ConcurrencyController, FixedConcurrency, type Outcome } from '../../operators/concurrency.js';
import { inFlight } from '../../operators/in-flight.js';
import { RateLimiter } from '../../operators/rate-limit.js';

describe('operators/in-flight', () => {
  let rx: TestScheduler;
  beforeEach(() => {
    rx = new TestScheduler((a, e) => {
      expect(a).to.deep.equal(e);
    });
  });

  it('runs at most the limit at once, results in completion order', () =>
    rx.run(({ cold, hot, expectObservable }) => {
      const controller = new FixedConcurrency(2, rx);
      const work = (x: string) => cold(x === 'a' ? '-----(A|)' : '--(B|)', { A: x.toUpperCase(), B: x.toUpperCase() });
      const src = hot('(abc)-----|');
      // a: 0-5, b: 0-2, c starts when b frees a permit at 2 and ends at 4
      expectObservable(src.pipe(inFlight(work, { controller, scheduler: rx }))).toBe('--B-CA----|', { A: 'A', B: 'B', C: 'C' });
    }));

  it('closes demand while at its limit and opens it when a permit frees', () =>
    rx.run(({ cold, hot, expectObservable }) => {
      const demand = new GateController(true);
      const controller = new FixedConcurrency(2, rx);
      const src = hot('a-b-c------|');
      const out = src.pipe(inFlight(() => cold('-----(x|)'), { controller, demand, scheduler: rx }));
      expectObservable(out).toBe('-----x-x--x|');
      // closed at 2 (two running); c waits from 4 and takes a's permit at 5; open at 7
      const states: [number, boolean][] = [];
      demand.open$.subscribe((s) => states.push([rx.now(), s]));
      rx.schedule(() => expect(states).to.deep.equal([[0, true], [2, false], [7, true]]), 20);
    }));

  it('ahead = 1 keeps demand open at the limit until one item waits', () =>
    rx.run(({ cold, hot, expectObservable }) => {
      const demand = new GateController(true);
      const controller = new FixedConcurrency(2, rx);
      const src = hot('a-b-c------|');
      const out = src.pipe(inFlight(() => cold('-----(x|)'), { controller, demand, ahead: 1, scheduler: rx }));
      expectObservable(out).toBe('-----x-x--x|');
      // open at 2 (two running, none waiting); c waits from 4 (closed) and starts at 5 (open again)
      const states: [number, boolean][] = [];
      demand.open$.subscribe((s) => states.push([rx.now(), s]));
      rx.schedule(() => expect(states).to.deep.equal([[0, true], [4, false], [5, true]]), 20);
    }));

  it('follows a limit the controller changes at run time', () =>
    rx.run(({ cold, hot, expectObservable }) => {
      let limit = 1;
      let running = 0;
      const controller: ConcurrencyController = {
        get limit() {
          return limit;
        },
        get inFlight() {
          return running;
        },
        acquire: () => (running++, rx.now()),
        release: () => {
          running--;
          limit = 3; // grows after the first completion
        },
      };
      const out = hot('(abcd)-----|').pipe(inFlight((x: string) => cold('---(y|)', { y: x }), { controller, scheduler: rx }));
      expectObservable(out).toBe('---a--(bcd)|');
    }));

  it('starts at most rate_limit_num requests per window', () =>
    rx.run(({ cold, hot, expectObservable }) => {
      const controller = new FixedConcurrency(10, rx);
      const rate = new RateLimiter(2, 10, rx);
      const out = hot('(abcde)--------------------|').pipe(
        inFlight((x: string) => cold('-(y|)', { y: x }), { controller, rate, scheduler: rx }),
      );
      expectObservable(out).toBe('-(ab)------(cd)------e-----|');
    }));

  it('completes only after every running unit finished; errors propagate', () =>
    rx.run(({ cold, expectObservable }) => {
      const controller = new FixedConcurrency(4, rx);
      expectObservable(cold('a|').pipe(inFlight(() => cold('----(x|)'), { controller, scheduler: rx }))).toBe('----(x|)');
      expectObservable(cold('a|').pipe(inFlight(() => cold('--#'), { controller, scheduler: rx }))).toBe('--#');
    }));

  it('reports outcomes and releases permits on unsubscribe', () =>
    rx.run(({ cold, expectObservable }) => {
      const seen: string[] = [];
      const controller = new FixedConcurrency(1, rx);
      const inner = controller.release.bind(controller);
      controller.release = (t: number, o: Outcome) => {
        seen.push(o);
        inner(t, o);
      };
      const out = cold('ab').pipe(
        inFlight((x: string) => cold('-(y|)', { y: x }), { controller, scheduler: rx, outcome: (y) => (y === 'a' ? 'ok' : 'backpressure') }),
      );
      expectObservable(out, '^-------!').toBe('-ab');
      rx.schedule(() => expect(seen).to.deep.equal(['ok', 'backpressure']), 10);
      const stuck = cold('a').pipe(inFlight(() => cold('------'), { controller: new FixedConcurrency(1, rx), scheduler: rx }));
      expectObservable(stuck, '^--!').toBe('---');
    }));

  it('keeps the source pulled only while demand is open (no unbounded queue)', () =>
    rx.run(() => {
      const demand = new GateController(true);
      const controller = new FixedConcurrency(3, rx);
      const input = new Subject<number>();
      let pulled = 0;
      let done = 0;
      let maxWaiting = 0;
      input.pipe(inFlight(() => timer(5, rx), { controller, demand, scheduler: rx })).subscribe(() => done++);
      // a pull loop like the edge buffer's: one item per tick, only while the gate is open
      const pump = () => {
        if (pulled === 50) return;
        if (demand.isOpen) input.next(pulled++);
        maxWaiting = Math.max(maxWaiting, pulled - done - controller.inFlight);
        rx.schedule(pump, 1);
      };
      pump();
      rx.schedule(() => {
        expect(done).to.equal(50);
        expect(maxWaiting).to.equal(0);
      }, 1000);
    }));
});
