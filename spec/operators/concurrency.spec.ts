import { expect } from 'chai';
import { Subject, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { GateController } from '../../lib/gate.js';
import { AdaptiveConcurrency, type AdaptiveOptions, FixedConcurrency, type Outcome, concurrencyController } from '../../operators/concurrency.js';
import { inFlight } from '../../operators/in-flight.js';
import { MetricsRegistry } from '../../lib/telemetry/registry.js';

const SPEC_DEFAULTS: AdaptiveOptions = { decreaseRatio: 0.9, ewmaAlpha: 0.7, rttDeviationScale: 2, initialConcurrency: 1, maxConcurrency: 200 };

/** Drives ARC against a simulated server in virtual time; returns the limit sampled every 100 ms. */
export function simulateArc(latencyMs: (inFlight: number) => number, opts: AdaptiveOptions, durationMs: number, outcomeOf?: (n: number) => Outcome) {
  const rx = new TestScheduler(() => {});
  const samples: number[] = [];
  rx.run(() => {
    const arc = new AdaptiveConcurrency(opts, rx);
    const demand = new GateController(true);
    const input = new Subject<number>();
    input
      .pipe(
        inFlight(
          () => {
            const n = arc.inFlight; // includes this request (acquired before work starts)
            return timer(latencyMs(n), rx);
          },
          { controller: arc, demand, scheduler: rx, outcome: () => (outcomeOf ? outcomeOf(arc.limit) : 'ok') },
        ),
      )
      .subscribe();
    let i = 0;
    const pump = () => {
      while (demand.isOpen && rx.now() < durationMs) input.next(i++);
      if (rx.now() < durationMs) rx.schedule(pump, 1);
    };
    pump();
    for (let t = 100; t <= durationMs; t += 100) rx.schedule(() => samples.push(arc.limit), t);
  });
  return samples;
}

const knee8 = (n: number) => (n <= 8 ? 20 : 20 + 15 * (n - 8));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('operators/concurrency (ARC)', () => {
  it('converges near a knee of 8 in flight when latency rises beyond it', () => {
    const samples = simulateArc(knee8, SPEC_DEFAULTS, 60_000);
    const tail = samples.slice(samples.length / 2);
    expect(mean(tail)).to.be.within(5, 12);
    expect(Math.max(...tail)).to.be.at.most(16);
  });

  it('converges near the knee with the labelstore defaults too (0.9 / 0.4 / 2.5)', () => {
    const samples = simulateArc(knee8, { ...SPEC_DEFAULTS, ewmaAlpha: 0.4, rttDeviationScale: 2.5 }, 60_000);
    expect(mean(samples.slice(samples.length / 2))).to.be.within(5, 12);
  });

  it('keeps growing, one permit per interval, against constant latency', () => {
    const samples = simulateArc(() => 20, SPEC_DEFAULTS, 5_000);
    expect(samples.at(-1)).to.be.greaterThan(100);
    for (let i = 1; i < samples.length; i++) expect(samples[i]! - samples[i - 1]!).to.be.at.most(6); // ~1 per 20 ms interval
  });

  it('stops at max_concurrency_limit', () => {
    const samples = simulateArc(() => 20, { ...SPEC_DEFAULTS, maxConcurrency: 25 }, 3_000);
    expect(Math.max(...samples)).to.equal(25);
  });

  it('backs off multiplicatively on back-pressure', () => {
    // the destination throttles whenever more than 4 requests run
    const samples = simulateArc(() => 20, SPEC_DEFAULTS, 10_000, (limit) => (limit > 4 ? 'backpressure' : 'ok'));
    expect(Math.max(...samples.slice(10))).to.be.at.most(6);
  });

  it('applies one interval step exactly: seed, +1, then floor(limit × ratio) on a slow interval', () => {
    const rx = new TestScheduler(() => {});
    rx.run(() => {
      const registry = new MetricsRegistry({});
      const g = { limit: registry.gauge('adaptive_concurrency_limit'), averagedRtt: registry.gauge('adaptive_concurrency_averaged_rtt') };
      const arc = new AdaptiveConcurrency({ ...SPEC_DEFAULTS, initialConcurrency: 10 }, rx, g);
      const at = (t: number, f: () => void) => rx.schedule(f, t);
      let s = 0;
      at(0, () => {
        for (let i = 0; i < 10; i++) s = arc.acquire();
      });
      at(10, () => arc.release(s, 'ok')); // seeds mean 10, next update at 20
      at(20, () => arc.release(s, 'ok')); // m = 15 > mean 10, variance 0 -> decrease to 9
      at(20, () => {
        expect(arc.limit).to.equal(9);
        expect(g.limit.value).to.equal(9);
        // EWMA: d = 5, mean = 10 + 0.7*5 = 13.5
        expect(arc.averagedRttMs).to.equal(13.5);
      });
      at(21, () => {
        for (let i = 0; i < 2; i++) s = arc.acquire(); // reaches the limit
      });
      at(34, () => arc.release(21, 'ok')); // m = 13 <= 13.5 at t >= 33.5 -> +1
      at(34, () => expect(arc.limit).to.equal(10));
    });
  });

  it('a fixed limit never moves', () =>
    new TestScheduler(() => {}).run(() => {
      const f = new FixedConcurrency(3, new TestScheduler(() => {}));
      const t = f.acquire();
      f.release(t);
      expect([f.limit, f.inFlight]).to.deep.equal([3, 0]);
    }));

  it('builds the controller request.concurrency asks for, with its adaptive settings', () => {
    const rx = new TestScheduler(() => {});
    const adaptive = { decrease_ratio: 0.5, ewma_alpha: 0.7, rtt_deviation_scale: 2, initial_concurrency: 6, max_concurrency_limit: 9 };
    const none = concurrencyController({ concurrency: 'none', adaptive_concurrency: adaptive }, rx);
    const fixed = concurrencyController({ concurrency: 5, adaptive_concurrency: adaptive }, rx);
    expect([none instanceof FixedConcurrency, none.limit, fixed.limit]).to.deep.equal([true, 1, 5]);
    rx.run(() => {
      const arc = concurrencyController({ concurrency: 'adaptive', adaptive_concurrency: adaptive }, rx);
      expect(arc).to.be.instanceOf(AdaptiveConcurrency);
      expect(arc.limit).to.equal(6);
      // back-pressure after the seeding interval: floor(6 × 0.5) = 3
      rx.schedule(() => arc.release(arc.acquire() - 10, 'ok'), 10);
      rx.schedule(() => arc.release(arc.acquire(), 'backpressure'), 30);
      rx.schedule(() => expect(arc.limit).to.equal(3), 31);
    });
    expect(concurrencyController({ concurrency: 'adaptive', adaptive_concurrency: { ...adaptive, initial_concurrency: 50 } }, rx).limit).to.equal(9);
  });
});
