/**
 * The source skeleton driven in virtual time: ordered settlement of positions, backpressure for
 * pull and push sources, draining at shutdown, byte and lag accounting, and the batch window.
 */
import { expect } from 'chai';
import { type Observable, type SchedulerLike, Subject, VirtualTimeScheduler, map, of } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { BatchWindow, OrderedSettlement, type SourceOutput, pauseWhileClosed, pullEvery, runSource } from '../../../../connectors/shared/source/index.js';
import type { SourceContext } from '../../../../lib/component.js';
import { componentContext, sourceContext } from '../../../../lib/component-context.js';
import { type DeliveryStatus, type Event, type EventBatch, EventMetadata, MetricEvent, type RoutedBatch, logEvent } from '../../../../lib/event.js';
import { type Gate, OPEN_GATE, gateFrom } from '../../../../lib/gate.js';
import { MetricsRegistry } from '../../../../lib/telemetry/registry.js';
import { Timestamp } from '../../../../lib/value.js';

const ID = 'src';

/** A source context on a fresh registry (fixed global tags, so sums match exactly). */
function testContext(o: { scheduler?: SchedulerLike; acknowledgements?: boolean; out?: Gate; shutdown$?: Observable<void> } = {}): SourceContext {
  const base = componentContext({ kind: 'source', type: 'test_source', id: ID, registry: new MetricsRegistry({}), ...(o.scheduler ? { scheduler: o.scheduler } : {}) });
  return sourceContext(base, { ...(o.out ? { out: o.out } : {}), acknowledgements: o.acknowledgements ?? false, ...(o.shutdown$ ? { shutdown$: o.shutdown$ } : {}) });
}

/** Starts a source whose `start` only hands out its output; the emitted batches are collected. */
function openOutput(ctx: SourceContext, options: { output?: string; protocol?: string; lagKey?: string } = {}) {
  let out: SourceOutput | undefined;
  const batches: (EventBatch | RoutedBatch)[] = [];
  const sub = runSource<EventBatch | RoutedBatch>(ctx, options, (o) => {
    out = o;
  }).subscribe((b) => batches.push(b));
  return { out: out!, batches, sub };
}

const log = (message: string) => logEvent({ message }, ID, 'test_source');
const messages = (b: EventBatch | RoutedBatch) => (Array.isArray(b) ? b : b.events).map((e) => (e.type === 'log' ? String(e.fields.message) : e.name)).join('');

/** What a sink does with a batch it finished: settle every event's copy. */
const settle = (batch: EventBatch | RoutedBatch | undefined, status: DeliveryStatus) => {
  for (const e of Array.isArray(batch) ? batch : batch!.events) e.meta.settle(status);
};

describe('source skeleton', () => {
  let rx: TestScheduler;
  beforeEach(() => {
    rx = new TestScheduler((a, e) => {
      expect(a).to.deep.equal(e);
    });
  });

  describe('OrderedSettlement', () => {
    it('advances only over a delivered prefix when batches settle out of order, in increasing order', () =>
      rx.run(({ hot, expectObservable }) => {
        const { out, batches } = openOutput(testContext({ scheduler: rx, acknowledgements: true }));
        const advanced$ = new Subject<number>();
        const ordered = new OrderedSettlement<number>(out, (p) => advanced$.next(p));
        for (let p = 1; p <= 5; p++) ordered.emit([log(`m${p}`), log(`n${p}`)], p);
        expect(batches.map(messages)).to.deep.equal(['m1n1', 'm2n2', 'm3n3', 'm4n4', 'm5n5']);
        expect(ordered.pending).to.equal(5);
        // each letter: the sink delivers that batch (1 = the first read); 3 and 5 settle before their prefix
        hot('--3-1-5-2-4', { 1: 0, 2: 1, 3: 2, 4: 3, 5: 4 }).subscribe((i) => settle(batches[i], 'delivered'));
        expectObservable(advanced$).toBe('----a---b-c', { a: 1, b: 3, c: 5 });
      }));

    it('waits for every event of a batch, including its fan-out copies', () => {
      const { out, batches } = openOutput(testContext({ acknowledgements: true }));
      const advanced: number[] = [];
      const ordered = new OrderedSettlement<number>(out, (p) => advanced.push(p));
      ordered.emit([log('a'), log('b')], 1);
      const copy = (batches[0] as EventBatch)[0]!.meta.clone(); // a second sink holds a copy of `a`
      settle(batches[0], 'delivered');
      expect(advanced).to.deep.equal([]);
      copy.settle('delivered');
      expect(advanced).to.deep.equal([1]);
    });

    it('a batch that was not delivered holds the position for the rest of the run; onHeld fires once', () =>
      rx.run(({ hot, expectObservable }) => {
        const { out, batches } = openOutput(testContext({ scheduler: rx, acknowledgements: true }));
        const advanced$ = new Subject<number>();
        const all: number[] = [];
        const held: [DeliveryStatus, number][] = [];
        const ordered = new OrderedSettlement<number>(out, (p) => (all.push(p), advanced$.next(p)), (s, p) => held.push([s, p]));
        for (let p = 1; p <= 5; p++) ordered.emit([log(`m${p}`)], p);
        // E = batch 3 errored, R = batch 5 rejected, digits = delivered
        const steps = { 1: [0, 'delivered'], 2: [1, 'delivered'], E: [2, 'errored'], 4: [3, 'delivered'], R: [4, 'rejected'] } as const;
        hot('-1-E-4-2-R', steps).subscribe(([i, s]) => settle(batches[i], s));
        // 2 settles after 3 errored: the prefix 1..2 is delivered, so 2 is saved, never 3 or later
        expectObservable(advanced$).toBe('-a-----b--', { a: 1, b: 2 });
        rx.flush();
        expect(held).to.deep.equal([['errored', 3]]);
        expect(ordered.pending).to.equal(0);
        // later batches, delivered or empty, do not move it either
        ordered.emit([log('m6')], 6);
        settle(batches[5], 'delivered');
        ordered.emit([], 7);
        expect(all).to.deep.equal([1, 2]);
        expect(held).to.have.length(1);
      }));

    it('expect: input emitted elsewhere advances in order once settled, with or without acknowledgements; one not delivered holds', () => {
      for (const acknowledgements of [false, true]) {
        const { out, batches } = openOutput(testContext({ acknowledgements }));
        const advanced: number[] = [];
        const held: [DeliveryStatus, number][] = [];
        const ordered = new OrderedSettlement<number>(out, (p) => advanced.push(p), (st, p) => held.push([st, p]));
        const settled = [1, 2, 3, 4].map((p) => ordered.expect(p));
        expect(ordered.pending).to.equal(4);
        expect(batches).to.deep.equal([]);
        settled[1]!('delivered');
        expect(advanced).to.deep.equal([]);
        settled[0]!('delivered');
        expect(advanced).to.deep.equal([2]);
        settled[3]!('delivered');
        settled[2]!('errored');
        expect(advanced).to.deep.equal([2]);
        expect(held).to.deep.equal([['errored', 3]]);
        expect(ordered.pending).to.equal(0);
      }
    });

    it('without acknowledgements a position advances right after its emission, events carry no notifier', () => {
      const trail: string[] = [];
      const ctx = testContext();
      let out: SourceOutput | undefined;
      runSource(ctx, {}, (o) => {
        out = o;
      }).subscribe((b) => trail.push(`emit ${messages(b)}`));
      const ordered = new OrderedSettlement<number>(out!, (p) => trail.push(`advance ${p}`));
      const batch = [log('a')];
      ordered.emit(batch, 1);
      ordered.emit([log('b')], 2);
      expect(trail).to.deep.equal(['emit a', 'advance 1', 'emit b', 'advance 2']);
      expect(batch[0]!.meta.notifiers).to.equal(undefined);
      expect(ordered.pending).to.equal(0);
    });

    it('an empty batch with a position advances in order: at once when nothing is pending, else after the batches before it', () => {
      const { out, batches } = openOutput(testContext({ acknowledgements: true }));
      const advanced: number[] = [];
      const ordered = new OrderedSettlement<number>(out, (p) => advanced.push(p));
      ordered.emit([], 1);
      expect(advanced).to.deep.equal([1]);
      ordered.emit([log('a')], 2);
      ordered.emit([], 3);
      ordered.emit([log('b')], 4);
      expect(batches.map(messages), 'an empty batch is never emitted').to.deep.equal(['a', 'b']);
      expect(advanced).to.deep.equal([1]);
      settle(batches[0], 'delivered');
      expect(advanced).to.deep.equal([1, 3]);
      settle(batches[1], 'delivered');
      expect(advanced).to.deep.equal([1, 3, 4]);
    });

    it('keeps read order over many batches settled in a scrambled order (the queue compacts as it goes)', () => {
      const { out, batches } = openOutput(testContext({ acknowledgements: true }));
      const advanced: number[] = [];
      const ordered = new OrderedSettlement<number>(out, (p) => advanced.push(p));
      const delivered = new Set<number>();
      const N = 400;
      for (let p = 1; p <= N; p++) ordered.emit([log(String(p))], p);
      // a fixed permutation: stride 7 through 1..N (7 and 400 are coprime)
      for (let k = 0; k < N; k++) {
        const p = ((k * 7) % N) + 1;
        delivered.add(p);
        const before = advanced.length;
        settle(batches[p - 1], 'delivered');
        for (const a of advanced.slice(before)) for (let q = 1; q <= a; q++) expect(delivered.has(q), `advanced to ${a} before ${q} was delivered`).to.equal(true);
        // the furthest delivered prefix is saved at once
        let prefix = 0;
        while (delivered.has(prefix + 1)) prefix++;
        if (prefix > 0) expect(advanced.at(-1)).to.equal(prefix);
      }
      expect(advanced.at(-1)).to.equal(N);
      for (let i = 1; i < advanced.length; i++) expect(advanced[i]!).to.be.above(advanced[i - 1]!);
      expect(ordered.pending).to.equal(0);
    });
  });

  describe('backpressure', () => {
    it('pullEvery: a closed gate stops reading within one batch (the read in flight); reading resumes on open with the period kept', () =>
      rx.run(({ cold, hot, expectObservable }) => {
        // the gate closes at 6 (read 2, started at 5, is in flight) and opens at 20
        const gate = gateFrom(hot('------c 13ms o', { c: false, o: true }));
        const starts: number[] = [];
        let n = 0;
        const read = () => {
          starts.push(rx.now());
          return cold('---(x|)', { x: n++ });
        };
        // each read takes 3 ms; a period of 5 ms starts reads at 0, 5, then waits for the gate
        expectObservable(pullEvery(5, read, gate, rx), '^ 33ms !').toBe('---a----b 14ms c 4ms d 4ms e', { a: 0, b: 1, c: 2, d: 3, e: 4 });
        rx.flush();
        expect(starts).to.deep.equal([0, 5, 20, 25, 30]);
        expect(starts.filter((t) => t >= 6 && t < 20), 'reads started while closed').to.deep.equal([]);
      }));

    it('pullEvery: a read slower than the period is followed at once, never overlapped; a gate closed meanwhile holds the next', () =>
      rx.run(({ cold, hot, expectObservable }) => {
        const gate = gateFrom(hot('----------c 9ms o', { c: false, o: true }));
        const starts: number[] = [];
        let n = 0;
        const read = () => {
          starts.push(rx.now());
          return cold('-------(x|)', { x: n++ }); // 7 ms per read, period 5
        };
        expectObservable(pullEvery(5, read, gate, rx), '^ 35ms !').toBe('7ms a 6ms b 12ms c 6ms d', { a: 0, b: 1, c: 2, d: 3 });
        rx.flush();
        // back to back while open (0, 7); closed at 10 while read 2 is in flight; open again at 20
        expect(starts).to.deep.equal([0, 7, 20, 27, 34]);
      }));

    it('pullEvery: two subscriptions to one pull keep their own period', () =>
      rx.run(({ cold, expectObservable }) => {
        // reads take 5 ms and overlap across the two subscriptions; each value is its read's start
        const pull = pullEvery(10, () => cold('-----(x|)', { x: rx.now() }), OPEN_GATE, rx);
        expectObservable(pull, '^ 29ms !').toBe('5ms a 9ms b 9ms c', { a: 0, b: 10, c: 20 });
        expectObservable(pull, '---^ 26ms !').toBe('8ms a 9ms b 9ms c', { a: 3, b: 13, c: 23 });
      }));

    it('pauseWhileClosed: a push source pauses its stream after the emission that found the gate closed, resumes on open', () =>
      rx.run(({ hot, expectObservable }) => {
        const gate = gateFrom(hot('--c-----o', { c: false, o: true }));
        const stream = new FakeStream();
        const ctx = testContext({ scheduler: rx, out: gate });
        const source = runSource(ctx, {}, (out) => {
          const gated = pauseWhileClosed(ctx.out);
          stream.onData = (chunk) => {
            out.emit([log(chunk)]);
            gated.pauseIfClosed(stream);
          };
          return { close: () => gated.close() };
        });
        hot('-a-b-c-d----e').subscribe((c) => stream.write(c));
        // b found the gate closed: c and d wait in the stream until it opens at 8
        expectObservable(source.pipe(map(messages))).toBe('-a-b----(cd)e');
        hot('---p-', { p: 0 }).subscribe(() => expect(stream.paused).to.equal(true));
      }));
  });

  describe('runSource', () => {
    it('draining: the source completes only after the drain resolves; close runs after it', async () => {
      const shutdown$ = new Subject<void>();
      const trail: string[] = [];
      let finish: (() => void) | undefined;
      let emitLate: (() => void) | undefined;
      runSource(testContext({ shutdown$ }), {}, (out) => {
        out.emit([log('first')]);
        emitLate = () => out.emit([log('in hand')]);
        return {
          drain: () => {
            trail.push('drain');
            return new Promise<void>((resolve) => (finish = resolve));
          },
          close: () => trail.push('close'),
        };
      }).subscribe({ next: (b) => trail.push(messages(b)), complete: () => trail.push('complete'), error: (e) => trail.push(`error ${String(e)}`) });
      shutdown$.next();
      await settled();
      expect(trail).to.deep.equal(['first', 'drain']);
      emitLate!(); // what was in hand when the drain began still goes out
      shutdown$.next(); // a second stop signal drains nothing more
      await settled();
      expect(trail).to.deep.equal(['first', 'drain', 'in hand']);
      finish!();
      await settled();
      expect(trail).to.deep.equal(['first', 'drain', 'in hand', 'complete', 'close']);
    });

    it('a drain that rejects fails the source with its error', async () => {
      const shutdown$ = new Subject<void>();
      let failed: unknown;
      runSource(testContext({ shutdown$ }), {}, () => ({ drain: () => Promise.reject(new Error('flush failed')) })).subscribe({ error: (e) => (failed = e) });
      shutdown$.next();
      await settled();
      expect((failed as Error).message).to.equal('flush failed');
    });

    it('unsubscribing closes at once, without draining', () => {
      const trail: string[] = [];
      const sub = runSource(testContext(), {}, () => ({ drain: () => void trail.push('drain'), close: () => trail.push('close') })).subscribe();
      expect(trail).to.deep.equal([]);
      sub.unsubscribe();
      expect(trail).to.deep.equal(['close']);
    });

    it('a start that throws fails the observable with that error', () =>
      rx.run(({ expectObservable }) => {
        const err = new Error('address in use');
        expectObservable(
          runSource(testContext({ scheduler: rx }), {}, () => {
            throw err;
          }),
        ).toBe('#', undefined, err);
      }));

    it('a source without drain completes at once on shutdown, close included', () =>
      rx.run(({ hot, expectObservable }) => {
        const trail: string[] = [];
        const shutdown$ = hot<void>('-----s', { s: undefined });
        const ticks = hot('-a-b---c');
        const source = runSource(testContext({ scheduler: rx, shutdown$ }), {}, (out) => {
          const sub = ticks.subscribe((t) => out.emit([log(t)]));
          return { close: () => (sub.unsubscribe(), trail.push('close')) };
        });
        expectObservable(source.pipe(map(messages))).toBe('-a-b-|');
        rx.flush();
        expect(trail).to.deep.equal(['close']);
      }));

    it('a source subscribed after the stop was signalled (a replaying shutdown$) completes at once', () =>
      rx.run(({ expectObservable }) => {
        let closed = 0;
        const source = runSource(testContext({ scheduler: rx, shutdown$: of(undefined) }), {}, () => ({ close: () => void closed++ }));
        expectObservable(source).toBe('|');
        rx.flush();
        expect(closed).to.equal(1);
      }));
  });

  describe('SourceOutput', () => {
    it('received(n) adds to component_received_bytes_total with the protocol tag', () => {
      const ctx = testContext();
      const { out } = openOutput(ctx, { protocol: 'tcp' });
      out.received(100);
      out.received(23);
      const series = ctx.registry.all().filter((s) => s.name === 'component_received_bytes_total');
      expect(series.map((s) => [s.tags.component_id, s.tags.protocol, s.value])).to.deep.equal([[ID, 'tcp', 123]]);
      const plain = testContext();
      openOutput(plain).out.received(7);
      expect(plain.registry.all().filter((s) => s.name === 'component_received_bytes_total').map((s) => [s.tags.protocol, s.value])).to.deep.equal([[undefined, 7]]);
    });

    it('records lag from lagKey only for events whose field is a Timestamp, in seconds on the scheduler clock', () => {
      const vts = new VirtualTimeScheduler();
      const ctx = testContext({ scheduler: vts });
      const { out, batches } = openOutput(ctx, { lagKey: 'ts' });
      vts.schedule(() => {
        out.emit([
          logEvent({ message: 'a', ts: new Timestamp(7_000) }), // 3 s old
          logEvent({ message: 'b', ts: '1970-01-01T00:00:07Z' }), // text, not a Timestamp
          logEvent({ message: 'c' }),
          logEvent({ message: 'd', ts: new Timestamp(9_500) }), // 0.5 s old
          logEvent({ message: 'e', ts: new Timestamp(12_000) }), // from the future: 0
          new MetricEvent('m', 'absolute', { type: 'gauge', value: 1 }, new EventMetadata(ID, 'test_source'), undefined, undefined, new Timestamp(1_000)),
        ]);
        out.emit([]);
      }, 10_000);
      vts.flush();
      expect(batches).to.have.length(1);
      const lag = ctx.registry.all().find((s) => s.name === 'source_lag_time_seconds')!;
      expect([lag.value, lag.sum]).to.deep.equal([3, 3.5]);
    });

    it('records no lag without lagKey', () => {
      const ctx = testContext();
      openOutput(ctx).out.emit([logEvent({ message: 'a', timestamp: new Timestamp(0) })]);
      expect(ctx.registry.all().filter((s) => s.name === 'source_lag_time_seconds')).to.deep.equal([]);
    });

    it('emits on a named output, never an empty batch', () => {
      const { out, batches } = openOutput(testContext(), { output: 'logs' });
      out.emit([]);
      out.emit([log('a')]);
      expect(batches.map((b) => (Array.isArray(b) ? '_default' : b.output))).to.deep.equal(['logs']);
    });

    it('emitSettled with acknowledgements: settles once every event settled, with the worst status', () => {
      const { out, batches } = openOutput(testContext({ acknowledgements: true }));
      const seen: DeliveryStatus[] = [];
      out.emitSettled([log('a'), log('b')], (s) => seen.push(s));
      const [a, b] = batches[0] as Event[];
      a!.meta.settle('errored');
      expect(seen).to.deep.equal([]);
      b!.meta.settle('delivered');
      expect(seen).to.deep.equal(['errored']);
    });

    it('emitSettled without acknowledgements: delivered right after the emission; an empty batch settles at once', () => {
      const trail: string[] = [];
      let out: SourceOutput | undefined;
      runSource(testContext(), {}, (o) => {
        out = o;
      }).subscribe((b) => trail.push(`emit ${messages(b)}`));
      out!.emitSettled([log('a')], (s) => trail.push(s));
      out!.emitSettled([], (s) => trail.push(`empty ${s}`));
      expect(trail).to.deep.equal(['emit a', 'delivered', 'empty delivered']);
    });

    it('emitAwait: the status at once without acknowledgements, a promise of it with them', async () => {
      expect(openOutput(testContext()).out.emitAwait([log('a')])).to.equal('delivered');
      const { out, batches } = openOutput(testContext({ acknowledgements: true }));
      expect(out.emitAwait([])).to.equal('delivered');
      const status = out.emitAwait([log('a')]);
      expect(status).to.be.instanceOf(Promise);
      settle(batches[0], 'rejected');
      expect(await status).to.equal('rejected');
    });
  });

  describe('BatchWindow', () => {
    it('closes at N records, or at the timeout from its first event; skip() counts only while open; flush() on demand; never empty', () =>
      rx.run(({ hot, expectObservable }) => {
        const flushed$ = new Subject<string>();
        const window = new BatchWindow(3, 10, rx, (events) => flushed$.next(events.map((e) => messages([e])).join('')));
        // lower case: a record with an event, s: a record without one, F: flush()
        hot('abc-d-e---------s-fsg-h-F-F---i').subscribe((step) => {
          if (step === 's') window.skip();
          else if (step === 'F') window.flush();
          else window.push(log(step));
        });
        // abc: three records; de: 10 ms after d; fg: f, a skipped record and g (the skip at 16
        // came while closed); h: flushed at 24, the flush at 26 finds nothing; i: 10 ms after i,
        // not 10 ms after h (h's timer went with its batch)
        expectObservable(flushed$).toBe('2ms 1 11ms 2 5ms 3 3ms 4 15ms 5', { 1: 'abc', 2: 'de', 3: 'fg', 4: 'h', 5: 'i' });
      }));

    it('close() drops the open batch and its timer; the next batch counts from zero', () =>
      rx.run(({ hot, expectObservable }) => {
        const flushed$ = new Subject<string>();
        const window = new BatchWindow(3, 10, rx, (events) => flushed$.next(events.map((e) => messages([e])).join('')));
        hot('ab-C-de--f').subscribe((step) => (step === 'C' ? window.close() : window.push(log(step))));
        expectObservable(flushed$).toBe('9ms x', { x: 'def' });
        hot('-----o', { o: 0 }).subscribe(() => expect(window.isOpen).to.equal(true));
      }));
  });
});

/** A stream that hands each written chunk to `onData` while flowing and keeps it while paused. */
class FakeStream {
  paused = false;
  onData: (chunk: string) => void = () => {};
  private readonly held: string[] = [];
  write(chunk: string): void {
    if (this.paused) this.held.push(chunk);
    else this.onData(chunk);
  }
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
    while (!this.paused && this.held.length > 0) this.onData(this.held.shift()!);
  }
}

/** Lets pending promise callbacks run (no timers involved). */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));
