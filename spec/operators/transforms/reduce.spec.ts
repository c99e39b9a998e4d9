import { expect } from 'chai';
import { lastValueFrom, map, of, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { BatchNotifier, type DeliveryStatus, type Event, type EventBatch, type LogEvent, MetricEvent, EventMetadata, attachNotifier, logEvent, settleAll } from '../../../lib/event.js';
import { compileSearchQuery } from '../../../operators/conditions/search-query.js';
import { Float, type ObjectValue, Timestamp, toJSON } from '../../../lib/value.js';
import { type ReduceOptions, reduce } from '../../../operators/transforms/reduce/index.js';

const T1 = Timestamp.parse('2024-05-01T10:00:00Z')!;
const T2 = Timestamp.parse('2024-05-01T10:00:05Z')!;
const T3 = Timestamp.parse('2024-05-01T10:00:09.5Z')!;
const q = (s: string) => compileSearchQuery(s, 'test');

async function runAll(options: ReduceOptions, inputs: ObjectValue[]): Promise<unknown[]> {
  const batches = await lastValueFrom(of<EventBatch>(inputs.map((f) => logEvent(f))).pipe(reduce(options), toArray()));
  return batches.flat().map((e) => toJSON((e as LogEvent).fields));
}

describe('operators/transforms/reduce', () => {
  describe('merging (flush on completion)', () => {
    const cases: [string, ReduceOptions, ObjectValue[], unknown[]][] = [
      ['reference example: sum, keep first, timestamp window', { groupBy: ['id'] }, [{ id: 'a', n: 1, msg: 'x', ts: T1 }, { id: 'a', n: 2, msg: 'y', ts: T2 }], [{ id: 'a', n: 3, msg: 'x', ts: '2024-05-01T10:00:00Z', ts_end: '2024-05-01T10:00:05Z' }]],
      ['a single event still gets <name>_end', {}, [{ ts: T1 }], [{ ts: '2024-05-01T10:00:00Z', ts_end: '2024-05-01T10:00:00Z' }]],
      ['default: int + float sums to a float', {}, [{ n: 1 }, { n: new Float(0.5) }], [{ n: 1.5 }]],
      ['default: booleans, nulls and arrays keep the first', {}, [{ b: true, z: null, a: [1] }, { b: false, z: 1, a: [2, 3] }], [{ b: true, z: null, a: [1] }]],
      ['default: a string arriving at a sum is ignored', {}, [{ n: 1 }, { n: 'x' }, { n: 2 }], [{ n: 3 }]],
      ['default: nested objects merge per leaf', {}, [{ o: { n: 1, s: 'a' } }, { o: { n: 2, s: 'b', t: 'new' } }], [{ o: { n: 3, s: 'a', t: 'new' } }]],
      ['default: an empty object is a leaf', {}, [{ o: {} }, { o: {} }], [{ o: {} }]],
      ['a field first seen later gets a merger then', {}, [{ a: 1 }, { a: 1, b: 5 }, { b: 5 }], [{ a: 2, b: 10 }]],
      ['groups by one field, absent is its own group', { groupBy: ['k'] }, [{ k: 'x', n: 1 }, { k: 'y', n: 10 }, { n: 100 }, { k: 'x', n: 2 }, { n: 200 }], [{ k: 'x', n: 3 }, { k: 'y', n: 10 }, { n: 300 }]],
      ['null and absent group apart', { groupBy: ['k'] }, [{ k: null, n: 1 }, { n: 2 }], [{ k: null, n: 1 }, { n: 2 }]],
      ['integer and float keys group apart', { groupBy: ['k'] }, [{ k: 1, n: 1 }, { k: new Float(1), n: 2 }], [{ k: 1, n: 1 }, { k: 1, n: 2 }]],
      ['groups by an ordered tuple of fields (numeric keys sum like any field)', { groupBy: ['a', 'b'] }, [{ a: 1, b: 2, n: 1 }, { a: 2, b: 1, n: 1 }, { a: 1, b: 2, n: 1 }], [{ a: 2, b: 4, n: 2 }, { a: 2, b: 1, n: 1 }]],
      ['groups by a nested field', { groupBy: ['req.id'] }, [{ req: { id: 'r' }, n: 1 }, { req: { id: 'r' }, n: 1 }], [{ req: { id: 'r' }, n: 2 }]],
      ['array', { mergeStrategies: { v: 'array' } }, [{ v: 1 }, { v: 'two' }, { v: [3] }], [{ v: [1, 'two', [3]] }]],
      ['concat strings with a space', { mergeStrategies: { m: 'concat' } }, [{ m: 'a' }, { m: 'b' }, { m: 'c' }], [{ m: 'a b c' }]],
      ['concat arrays splice, scalars append', { mergeStrategies: { m: 'concat' } }, [{ m: [1] }, { m: [2, 3] }, { m: 4 }], [{ m: [1, 2, 3, 4] }]],
      ['concat ignores a non-string after a string', { mergeStrategies: { m: 'concat' } }, [{ m: 'a' }, { m: 1 }, { m: 'b' }], [{ m: 'a b' }]],
      ['concat_newline', { mergeStrategies: { m: 'concat_newline' } }, [{ m: 'a' }, { m: 'b' }], [{ m: 'a\nb' }]],
      ['concat_raw', { mergeStrategies: { m: 'concat_raw' } }, [{ m: 'a' }, { m: 'b' }], [{ m: 'ab' }]],
      ['discard keeps the first', { mergeStrategies: { n: 'discard' } }, [{ n: 1 }, { n: 2 }], [{ n: 1 }]],
      ['retain keeps the last non-null', { mergeStrategies: { v: 'retain' } }, [{ v: 'a' }, { v: 'b' }, { v: null }], [{ v: 'b' }]],
      ['retain keeps a null first when all later are null', { mergeStrategies: { v: 'retain' } }, [{ v: null }, { v: null }], [{ v: null }]],
      ['sum of integers stays an integer', { mergeStrategies: { n: 'sum' } }, [{ n: 2 }, { n: 3 }], [{ n: 5 }]],
      ['sum on a string first value leaves the field out until a number comes', { mergeStrategies: { n: 'sum' } }, [{ n: 'x' }, { n: 4 }, { n: 1 }], [{ n: 5 }]],
      ['max', { mergeStrategies: { n: 'max' } }, [{ n: 3 }, { n: new Float(7.5) }, { n: 5 }], [{ n: 7.5 }]],
      ['min', { mergeStrategies: { n: 'min' } }, [{ n: 3 }, { n: new Float(7.5) }, { n: -1 }], [{ n: -1 }]],
      ['max stays a float once a float won', { mergeStrategies: { n: 'max' } }, [{ n: new Float(1.5) }, { n: 4 }], [{ n: 4 }]],
      ['shortest_array', { mergeStrategies: { a: 'shortest_array' } }, [{ a: [1, 2] }, { a: [3] }, { a: [4] }, { a: [5, 6, 7] }], [{ a: [3] }]],
      ['longest_array', { mergeStrategies: { a: 'longest_array' } }, [{ a: [1, 2] }, { a: [3] }, { a: [4, 5] }, { a: [5, 6, 7] }], [{ a: [5, 6, 7] }]],
      ['longest_array needs an array first', { mergeStrategies: { a: 'longest_array' } }, [{ a: 'x' }, { b: 1 }], [{ b: 1 }]],
      ['flat_unique flattens arrays and object values', { mergeStrategies: { v: 'flat_unique' } }, [{ v: [1, 2] }, { v: 2 }, { v: { a: 3, b: 1 } }, { v: '1' }], [{ v: [1, 2, 3, '1'] }]],
      ['a strategy on an object applies to the whole value', { mergeStrategies: { o: 'array' } }, [{ o: { a: 1 } }, { o: { a: 2 } }], [{ o: [{ a: 1 }, { a: 2 }] }]],
      ['a strategy on a nested path', { mergeStrategies: { 'o.m': 'concat' } }, [{ o: { m: 'a', n: 1 } }, { o: { m: 'b', n: 1 } }], [{ o: { m: 'a b', n: 2 } }]],
      ['ends_when flushes including the event', { endsWhen: q('@end:true') }, [{ n: 1 }, { n: 2, end: true }, { n: 4 }], [{ n: 3, end: true }, { n: 4 }]],
      ['ends_when on a fresh group flushes it alone', { endsWhen: q('@end:true') }, [{ n: 1, end: true }, { n: 2, end: true }], [{ n: 1, end: true }, { n: 2, end: true }]],
      ['starts_when flushes without the event and starts a new one', { startsWhen: q('@start:true') }, [{ n: 1 }, { n: 2 }, { n: 4, start: true }, { n: 8 }], [{ n: 3 }, { n: 12, start: true }]],
      ['starts_when per group', { groupBy: ['g'], startsWhen: q('@start:true') }, [{ g: 'a', n: 1, start: true }, { g: 'b', n: 10 }, { g: 'a', n: 2 }, { g: 'a', n: 4, start: true }, { g: 'b', n: 20, start: true }], [{ g: 'a', n: 3, start: true }, { g: 'b', n: 10 }, { g: 'a', n: 4, start: true }, { g: 'b', n: 20, start: true }]],
      ['a throwing condition counts as false', { endsWhen: () => { throw new Error('boom'); } }, [{ n: 1 }, { n: 2 }], [{ n: 3 }]],
      ['three timestamps: first and last', {}, [{ t: T1 }, { t: T3 }, { t: T2 }], [{ t: '2024-05-01T10:00:00Z', t_end: '2024-05-01T10:00:05Z' }]],
    ];
    for (const [name, options, inputs, want] of cases) {
      it(name, async () => {
        expect(await runAll(options, inputs)).to.deep.equal(want);
      });
    }

    it('keeps number kinds: int sums stay integers, a float makes a float, max keeps float once held', async () => {
      const run = async (options: ReduceOptions, inputs: ObjectValue[]) =>
        ((await lastValueFrom(of<EventBatch>(inputs.map((f) => logEvent(f))).pipe(reduce(options), toArray()))).flat()[0] as LogEvent).fields;
      expect((await run({}, [{ n: 1 }, { n: 2 }])).n).to.equal(3);
      expect((await run({}, [{ n: 1 }, { n: new Float(2) }])).n).to.deep.equal(new Float(3));
      expect((await run({ mergeStrategies: { n: 'max' } }, [{ n: new Float(1.5) }, { n: 4 }])).n).to.deep.equal(new Float(4));
      expect((await run({ mergeStrategies: { n: 'min' } }, [{ n: 5 }, { n: 4 }])).n).to.equal(4);
    });
    it('reports merge failures through the hook', async () => {
      const seen: string[] = [];
      await runAll({ mergeStrategies: { s: 'sum' }, events: { mergeFailed: (f, r) => seen.push(`${f}: ${r}`) } }, [{ s: 'x', n: 1 }, { s: 1, n: 'y' }]);
      expect(seen).to.deep.equal(['s: sum needs a number, got string', 'n: expected a number, got string']);
    });
    it('passes metric events through untouched', async () => {
      const m = new MetricEvent('m', 'absolute', { type: 'gauge', value: 1 }, new EventMetadata('s', 't'));
      const out = (await lastValueFrom(of<EventBatch>([logEvent({ n: 1 }), m]).pipe(reduce(), toArray()))).flat();
      expect(out[0]).to.equal(m);
      expect(out).to.have.length(2);
    });
    it('rejects starts_when with ends_when, index paths and a zero flush period', () => {
      expect(() => reduce({ startsWhen: () => true, endsWhen: () => true })).to.throw(/only one of/);
      expect(() => reduce({ mergeStrategies: { 'a[0]': 'sum' } })).to.throw(/array indexes/);
      expect(() => reduce({ flushPeriodMs: 0 })).to.throw(/flush_period_ms/);
    });
  });

  describe('acknowledgements', () => {
    it('merged events settle every source notifier together', async () => {
      const statuses: DeliveryStatus[] = [];
      const n1 = new BatchNotifier((s) => statuses.push(s));
      const n2 = new BatchNotifier((s) => statuses.push(s));
      const a = [logEvent({ n: 1 }), logEvent({ n: 2 })];
      const b = [logEvent({ n: 4 })];
      attachNotifier(a, n1);
      attachNotifier(b, n2);
      const out = (await lastValueFrom(of<EventBatch[]>(a, b).pipe(reduce(), toArray()))).flat();
      expect(out).to.have.length(1);
      expect(out[0]!.meta.notifiers).to.have.length(3);
      expect(statuses).to.deep.equal([]);
      settleAll(out, 'delivered');
      expect(statuses).to.deep.equal(['delivered', 'delivered']);
      expect(n1.isSettled && n2.isSettled).to.equal(true);
    });
  });

  describe('timing (virtual time)', () => {
    let rx: TestScheduler;
    beforeEach(() => {
      rx = new TestScheduler((a, e) => {
        expect(a).to.deep.equal(e);
      });
    });
    const ev = (f: ObjectValue): EventBatch => [logEvent(f)];
    const json = map((b: EventBatch) => b.map((e: Event) => toJSON((e as LogEvent).fields)));

    it('flushes a group after 30 s of inactivity, at the next 1 s check', () =>
      rx.run(({ hot, expectObservable }) => {
        const input = hot<EventBatch>('a 9999ms b', { a: ev({ n: 1 }), b: ev({ n: 2 }) });
        let stale = 0;
        const out = input.pipe(reduce({ scheduler: rx, events: { staleFlushed: (n) => (stale += n) } }), json);
        // last event at 10 s; expires at 40 s, noticed at the 40 s tick
        expectObservable(out, '^ 60s !').toBe('40s x', { x: [{ n: 3 }] });
        rx.flush();
        expect(stale).to.equal(1);
      }));

    it('expiry is only noticed at flush ticks', () =>
      rx.run(({ hot, expectObservable }) => {
        const input = hot<EventBatch>('250ms a', { a: ev({ n: 1 }) });
        const out = input.pipe(reduce({ scheduler: rx, expireAfterMs: 1000, flushPeriodMs: 500 }), json);
        // expires at 1250 ms; ticks at 500, 1000, 1500 -> flushed at 1500
        expectObservable(out, '^ 3s !').toBe('1500ms x', { x: [{ n: 1 }] });
      }));

    it('each group expires on its own clock', () =>
      rx.run(({ hot, expectObservable }) => {
        const input = hot<EventBatch>('a 1999ms b 999ms a', { a: ev({ g: 'a', n: 1 }), b: ev({ g: 'b', n: 1 }) });
        const out = input.pipe(reduce({ scheduler: rx, groupBy: ['g'], expireAfterMs: 3000, flushPeriodMs: 1000 }), json);
        // b last seen at 2000 -> due 5000; a last seen at 3000 -> due 6000
        expectObservable(out, '^ 10s !').toBe('5s x 999ms y', { x: [{ g: 'b', n: 1 }], y: [{ g: 'a', n: 2 }] });
      }));

    it('activity postpones expiry', () =>
      rx.run(({ hot, expectObservable }) => {
        const input = hot<EventBatch>('a 799ms a 799ms a', { a: ev({ n: 1 }) });
        const out = input.pipe(reduce({ scheduler: rx, expireAfterMs: 1000, flushPeriodMs: 100 }), json);
        expectObservable(out, '^ 5s !').toBe('2600ms x', { x: [{ n: 3 }] });
      }));

    it('ends_when emits immediately, in input order with other flushes', () =>
      rx.run(({ hot, expectObservable }) => {
        const input = hot<EventBatch>('a 9ms b 9ms c', {
          a: ev({ g: 'p', n: 1 }),
          b: [logEvent({ g: 'q', n: 5 }), logEvent({ g: 'p', n: 2, end: true })],
          c: ev({ g: 'q', n: 5, end: true }),
        });
        const out = input.pipe(reduce({ scheduler: rx, groupBy: ['g'], endsWhen: q('@end:true') }), json);
        expectObservable(out).toBe('10ms x 9ms y', { x: [{ g: 'p', n: 3, end: true }], y: [{ g: 'q', n: 10, end: true }] });
      }));

    it('starts_when flushes the previous transaction at the start of the next', () =>
      rx.run(({ hot, expectObservable }) => {
        const input = hot<EventBatch>('s 4ms a 4ms s 4ms a 4ms |', { s: ev({ n: 1, start: true }), a: ev({ n: 10 }) });
        const out = input.pipe(reduce({ scheduler: rx, startsWhen: q('@start:true') }), json);
        expectObservable(out).toBe('10ms x 9ms (y|)', { x: [{ n: 11, start: true }], y: [{ n: 11, start: true }] });
      }));

    it('flushes every open group when the input completes, without counting them stale', () =>
      rx.run(({ hot, expectObservable }) => {
        const input = hot<EventBatch>('a b 5ms |', { a: ev({ g: 'x', n: 1 }), b: ev({ g: 'y', n: 2 }) });
        let stale = 0;
        const out = input.pipe(reduce({ scheduler: rx, groupBy: ['g'], events: { staleFlushed: (n) => (stale += n) } }), json);
        expectObservable(out).toBe('7ms (x|)', { x: [{ g: 'x', n: 1 }, { g: 'y', n: 2 }] });
        rx.flush();
        expect(stale).to.equal(0);
      }));

    it('stops its timer when no group is open (the test scheduler drains)', () =>
      rx.run(({ hot, expectObservable }) => {
        const input = hot<EventBatch>('a', { a: ev({ n: 1, end: true }) });
        const out = input.pipe(reduce({ scheduler: rx, endsWhen: q('@end:true') }), json);
        expectObservable(out).toBe('x', { x: [{ n: 1, end: true }] });
      }));
  });
});
