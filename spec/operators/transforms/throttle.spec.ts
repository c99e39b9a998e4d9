import { expect } from 'chai';
import { type SchedulerLike, Subject, asyncScheduler, map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { BatchNotifier, type DeliveryStatus, type EventBatch, type LogEvent, attachNotifier, logEvent } from '../../../lib/event.js';
import { compileSearchQuery } from '../../../operators/conditions/search-query.js';
import { type ObjectValue, Timestamp } from '../../../lib/value.js';
import { KeyedGcra, type ThrottleOptions, throttle } from '../../../operators/transforms/throttle/index.js';

/** Feeds one event per step at the given time; returns the ids that passed. */
function runSteps(options: Omit<ThrottleOptions, 'scheduler'>, steps: [number, ObjectValue][]): number[] {
  let now = 0;
  const scheduler: SchedulerLike = { now: () => now, schedule: asyncScheduler.schedule.bind(asyncScheduler) };
  const input = new Subject<EventBatch>();
  const passed: number[] = [];
  input.pipe(throttle({ ...options, scheduler })).subscribe((b) => {
    for (const e of b) passed.push((e as LogEvent).fields.id as number);
  });
  steps.forEach(([t, f], id) => {
    now = t;
    input.next([logEvent({ id, ...f })]);
  });
  input.complete();
  return passed;
}

const burst = (n: number, t = 0, f: ObjectValue = {}): [number, ObjectValue][] => Array.from({ length: n }, () => [t, f]);

describe('operators/transforms/throttle', () => {
  describe('GCRA per key', () => {
    const cases: [string, Omit<ThrottleOptions, 'scheduler'>, [number, ObjectValue][], number[]][] = [
      ['reference example: 2 per 5 s, third at 2 s dropped, one at 5 s passes', { threshold: 2, windowSecs: 5 }, [[0, {}], [0, {}], [2000, {}], [5000, {}]], [0, 1, 3]],
      ['a burst up to the threshold passes', { threshold: 3, windowSecs: 1 }, burst(3), [0, 1, 2]],
      ['the event after the burst is dropped', { threshold: 3, windowSecs: 1 }, burst(4), [0, 1, 2]],
      ['threshold 1: one per window', { threshold: 1, windowSecs: 5 }, [[0, {}], [4999, {}], [5000, {}], [5001, {}]], [0, 2]],
      ['refill is one per window/threshold, not a window reset', { threshold: 4, windowSecs: 4 }, [...burst(4), [1000, {}], [1000, {}], [1999, {}], [2000, {}]], [0, 1, 2, 3, 4, 7]],
      ['a long idle key gets its full burst back', { threshold: 2, windowSecs: 1 }, [...burst(2), [100, {}], [10_000, {}], [10_000, {}], [10_000, {}]], [0, 1, 3, 4]],
      ['never more than threshold in a burst, even after a long idle', { threshold: 2, windowSecs: 1 }, [[0, {}], [60_000, {}], [60_000, {}], [60_000, {}]], [0, 1, 2]],
      ['fractional window_secs', { threshold: 2, windowSecs: 0.5 }, [...burst(3), [250, {}], [250, {}]], [0, 1, 3]],
      ['non-integral emission interval (1 s / 3)', { threshold: 3, windowSecs: 1 }, [...burst(3), [333, {}], [334, {}], [667, {}], [668, {}]], [0, 1, 2, 4, 5]],
      ['exact boundary: an event at exactly T conforms', { threshold: 2, windowSecs: 2 }, [...burst(2), [999, {}], [1000, {}]], [0, 1, 3]],
      ['dropped events do not consume capacity', { threshold: 1, windowSecs: 1 }, [[0, {}], [500, {}], [900, {}], [1000, {}]], [0, 3]],
      ['steady rate at exactly the limit always passes', { threshold: 2, windowSecs: 2 }, [[0, {}], [1000, {}], [2000, {}], [3000, {}], [4000, {}]], [0, 1, 2, 3, 4]],
      ['steady rate above the limit passes the burst then one per interval', { threshold: 2, windowSecs: 2 }, [[0, {}], [500, {}], [1000, {}], [1500, {}], [2000, {}], [2500, {}], [3000, {}]], [0, 1, 2, 4, 6]],
      ['keys are limited separately', { threshold: 1, windowSecs: 10, keyField: '{{ k }}' }, [[0, { k: 'a' }], [0, { k: 'b' }], [0, { k: 'a' }], [0, { k: 'b' }], [0, { k: 'c' }]], [0, 1, 4]],
      ['each key has its own threshold', { threshold: 2, windowSecs: 10, keyField: '{{ k }}' }, [...burst(3, 0, { k: 'a' }), ...burst(3, 0, { k: 'b' })], [0, 1, 3, 4]],
      ['a key from a nested field', { threshold: 1, windowSecs: 10, keyField: '{{ .http.host }}' }, [[0, { http: { host: 'x' } }], [0, { http: { host: 'y' } }], [0, { http: { host: 'x' } }]], [0, 1]],
      ['a composed template key', { threshold: 1, windowSecs: 10, keyField: '{{ a }}-{{ b }}' }, [[0, { a: 1, b: 2 }], [0, { a: 1, b: 3 }], [0, { a: 1, b: 2 }]], [0, 1]],
      ['a missing key field shares one bucket', { threshold: 1, windowSecs: 10, keyField: '{{ k }}' }, [[0, {}], [0, { other: 1 }], [0, { k: 'a' }]], [0, 2]],
      ['without key_field every event shares one bucket', { threshold: 2, windowSecs: 10 }, [[0, { k: 'a' }], [0, { k: 'b' }], [0, { k: 'c' }]], [0, 1]],
      ['a key rendered as "None" is not the shared bucket', { threshold: 1, windowSecs: 10, keyField: '{{ k }}' }, [[0, {}], [0, { k: 'None' }]], [0, 1]],
      ['numbers render into keys', { threshold: 1, windowSecs: 10, keyField: '{{ k }}' }, [[0, { k: 1 }], [0, { k: '1' }]], [0]],
      ['strftime items in a key template use the event timestamp', { threshold: 1, windowSecs: 100, keyField: '%H' }, [[0, { timestamp: Timestamp.parse('2024-01-01T10:00:00Z')! }], [0, { timestamp: Timestamp.parse('2024-01-01T11:00:00Z')! }], [0, { timestamp: Timestamp.parse('2024-01-01T10:30:00Z')! }]], [0, 1]],
      ['exclude lets matching events pass untouched', { threshold: 1, windowSecs: 10, exclude: compileSearchQuery('@special:true', 'x') }, [[0, {}], [0, { special: true }], [0, { special: true }], [0, {}]], [0, 1, 2]],
      ['excluded events do not use capacity', { threshold: 1, windowSecs: 10, exclude: compileSearchQuery('@special:true', 'x') }, [[0, { special: true }], [0, {}], [0, {}]], [0, 1]],
      ['exclude with keys', { threshold: 1, windowSecs: 10, keyField: '{{ k }}', exclude: compileSearchQuery('@k:b', 'x') }, [[0, { k: 'a' }], [0, { k: 'a' }], [0, { k: 'b' }], [0, { k: 'b' }]], [0, 2, 3]],
      ['refill continues across keys independently', { threshold: 1, windowSecs: 2, keyField: '{{ k }}' }, [[0, { k: 'a' }], [1000, { k: 'b' }], [2000, { k: 'a' }], [2000, { k: 'b' }], [3000, { k: 'b' }]], [0, 1, 2, 4]],
      ['large threshold bursts', { threshold: 1000, windowSecs: 1 }, burst(1001), Array.from({ length: 1000 }, (_, i) => i)],
      ['a key forgotten after idle purge behaves as fresh', { threshold: 1, windowSecs: 1, keyField: '{{ k }}' }, [[0, { k: 'a' }], [5000, { k: 'z' }], [5000, { k: 'a' }], [5001, { k: 'a' }]], [0, 1, 2]],
      ['time going nowhere: only the burst', { threshold: 2, windowSecs: 1 }, burst(10, 12_345), [0, 1]],
      ['a throwing exclude counts as false', { threshold: 1, windowSecs: 10, exclude: () => { throw new Error('boom'); } }, burst(2), [0]],
      ['the shared bucket refills too', { threshold: 1, windowSecs: 1, keyField: '{{ k }}' }, [[0, {}], [500, {}], [1000, {}]], [0, 2]],
    ];
    for (const [name, options, steps, want] of cases) {
      it(name, () => {
        expect(runSteps(options, steps)).to.deep.equal(want);
      });
    }

    it('rejects zero threshold or window', () => {
      expect(() => new KeyedGcra(0, 1000)).to.throw(/non-zero/);
      expect(() => new KeyedGcra(1, 0)).to.throw(/non-zero/);
    });
    it('purges keys back at full capacity once per window', () => {
      const g = new KeyedGcra(2, 1000);
      g.allow('a', 0);
      g.allow('b', 0);
      g.allow('b', 0);
      g.purge(0);
      expect(g.size).to.equal(2);
      g.purge(600); // within the window: no purge yet
      expect(g.size).to.equal(2);
      g.purge(1000); // a is full again (tat 500), b too (tat 1000)
      expect(g.size).to.equal(0);
    });
  });

  describe('events, metrics hooks and acknowledgements', () => {
    it('reports drops with their key and template failures', () => {
      const seen: string[] = [];
      runSteps(
        {
          threshold: 1,
          windowSecs: 10,
          keyField: '{{ k }}',
          events: { discarded: (k) => seen.push(`drop ${k}`), templateFailed: (m) => seen.push(`missing ${m.join(',')}`) },
        },
        [[0, { k: 'a' }], [0, { k: 'a' }], [0, {}], [0, {}]],
      );
      expect(seen).to.deep.equal(['drop a', 'missing k', 'missing k', 'drop undefined']);
    });
    it('settles dropped events as delivered and keeps the rest pending', () => {
      const statuses: DeliveryStatus[] = [];
      const notifier = new BatchNotifier((s) => statuses.push(s));
      const batch = [logEvent({ n: 1 }), logEvent({ n: 2 }), logEvent({ n: 3 })];
      attachNotifier(batch, notifier);
      const out: EventBatch[] = [];
      const input = new Subject<EventBatch>();
      input.pipe(throttle({ threshold: 1, windowSecs: 1, scheduler: { now: () => 0, schedule: asyncScheduler.schedule.bind(asyncScheduler) } })).subscribe((b) => out.push(b));
      input.next(batch);
      expect(out).to.have.length(1);
      expect(out[0]).to.have.length(1);
      expect(batch[1]!.meta.notifiers).to.equal(undefined);
      expect(batch[2]!.meta.notifiers).to.equal(undefined);
      expect(statuses).to.deep.equal([]);
      out[0]![0]!.meta.settle('delivered');
      expect(statuses).to.deep.equal(['delivered']);
    });
    it('passes the batch through unchanged when nothing is dropped, and never emits an empty batch', () => {
      const out: EventBatch[] = [];
      const input = new Subject<EventBatch>();
      input.pipe(throttle({ threshold: 2, windowSecs: 1, scheduler: { now: () => 0, schedule: asyncScheduler.schedule.bind(asyncScheduler) } })).subscribe((b) => out.push(b));
      const first = [logEvent({}), logEvent({})];
      input.next(first);
      input.next([logEvent({})]);
      expect(out).to.have.length(1);
      expect(out[0]).to.equal(first);
    });
  });

  describe('windows in virtual time', () => {
    let rx: TestScheduler;
    beforeEach(() => {
      rx = new TestScheduler((a, e) => {
        expect(a).to.deep.equal(e);
      });
    });
    const count = map((b: EventBatch) => b.length);

    it('threshold 2 / 5 s: burst, drop, refill at 2.5 s steps', () =>
      rx.run(({ hot, expectObservable }) => {
        const e = () => [logEvent({})];
        const input = hot<EventBatch>('a 1999ms b 499ms c 2499ms d', { a: [logEvent({}), logEvent({}), logEvent({})], b: e(), c: e(), d: e() });
        // t=0: 2 of 3 pass; t=2000 dropped (next cell at 2500); t=2500 passes; t=5000 passes
        expectObservable(input.pipe(throttle({ threshold: 2, windowSecs: 5, scheduler: rx }), count)).toBe('a 2499ms c 2499ms d', { a: 2, c: 1, d: 1 });
      }));

    it('boundary: one frame before the refill is dropped, at the refill passes', () =>
      rx.run(({ hot, expectObservable }) => {
        const input = hot<EventBatch>('a 998ms b c', { a: [logEvent({})], b: [logEvent({})], c: [logEvent({})] });
        expectObservable(input.pipe(throttle({ threshold: 1, windowSecs: 1, scheduler: rx }), count)).toBe('a 999ms c', { a: 1, c: 1 });
      }));

    it('keys refill independently over time', () =>
      rx.run(({ hot, expectObservable }) => {
        const k = (key: string) => [logEvent({ k: key })];
        const input = hot<EventBatch>('a b 498ms a b 498ms a b', { a: k('a'), b: k('b') });
        const out = input.pipe(
          throttle({ threshold: 1, windowSecs: 1, keyField: '{{ k }}', scheduler: rx }),
          map((b) => b.map((e) => (e as LogEvent).fields.k).join('')),
        );
        expectObservable(out).toBe('ab 998ms ab', { a: 'a', b: 'b' });
      }));
  });
});
