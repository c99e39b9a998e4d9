/**
 * The request-sink skeleton driven by a scripted fake service in virtual time: partial retries,
 * timeouts and aborts, concurrency, rejected vs retried accounting, partitions, confirmations.
 */
import { expect } from 'chai';
import { Subject, VirtualTimeScheduler } from 'rxjs';
import type { Delivery, Event, EventBatch } from '../../../lib/event.js';
import { logEvent } from '../../../lib/event.js';
import { TemplateError } from '../../../lib/template.js';
import { type Encoded, type RequestSinkParts, type SinkRequest, type Verdict, requestSink } from '../../../connectors/shared/request-sink.js';
import { type TestSinkContext, testSinkContext } from '../../helpers/sink-context.js';

interface Item extends Encoded {
  readonly n: number;
}
interface Req extends SinkRequest {
  readonly ns: number[];
}
type Answer = Verdict<Req> | 'ok' | 'hang' | Error;

/** A virtual clock: runs due actions, letting promise chains settle between them. */
class Clock {
  readonly scheduler = new VirtualTimeScheduler();
  private async settle() {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  }
  get now() {
    return this.scheduler.now();
  }
  /** Runs every action due up to `t` (absolute ms), in time order. */
  async advanceTo(t: number) {
    await this.settle();
    for (;;) {
      const next = this.scheduler.actions[0];
      if (!next || next.delay > t) break;
      this.scheduler.maxFrames = next.delay;
      this.scheduler.flush();
      await this.settle();
    }
    this.scheduler.frame = Math.max(this.scheduler.frame, t);
  }
}

const ev = (n: number): Event => logEvent({ message: `m${n}`, n, tenant: n % 2 === 0 ? 'even' : 'odd' });
const numOf = (e: Event) => (e as unknown as { fields: { n: number } }).fields.n;
const nums = (ds: readonly Delivery[], status: Delivery['status']) => ds.filter((d) => d.status === status).flatMap((d) => d.events.map(numOf)).sort((a, b) => a - b);

interface Harness {
  clock: Clock;
  ctx: TestSinkContext;
  sends: { at: number; ns: number[]; signal: AbortSignal }[];
  deliveries: Delivery[];
  input: Subject<EventBatch>;
  done: Promise<void>;
  maxInFlight: number;
}

const request = (over: Record<string, unknown> = {}) => ({
  concurrency: 1 as number | 'adaptive' | 'none',
  rate_limit_num: Number.MAX_VALUE,
  rate_limit_duration_secs: 1,
  retry_attempts: 5,
  retry_initial_backoff_secs: 1,
  retry_max_duration_secs: 10,
  retry_jitter_mode: 'none' as const,
  timeout_secs: 2,
  adaptive_concurrency: { decrease_ratio: 0.9, ewma_alpha: 0.4, rtt_deviation_scale: 2.5, initial_concurrency: 1, max_concurrency_limit: 200 },
  ...over,
});

/** Builds a sink whose service answers from `script` (per call, in order) after `latency` ms. */
function harness(script: Answer[], opts: { latency?: number; parts?: Partial<RequestSinkParts<Item, Req, Answer>>; request?: Record<string, unknown>; maxEvents?: number } = {}): Harness {
  const clock = new Clock();
  const ctx = testSinkContext('fake', { scheduler: clock.scheduler });
  const h: Harness = { clock, ctx, sends: [], deliveries: [], input: new Subject<EventBatch>(), done: Promise.resolve(), maxInFlight: 0 };
  let inFlight = 0;
  const latency = opts.latency ?? 10;
  const parts: RequestSinkParts<Item, Req, Answer> = {
    encode: (event) => ({ event, size: 1, key: undefined, n: numOf(event) }),
    build: (items) => ({ events: items.map((i) => i.event), bytes: items.length * 10, ns: items.map((i) => i.n) }),
    send: (req, signal) => {
      h.sends.push({ at: clock.now, ns: req.ns, signal });
      const answer = script.shift() ?? 'ok';
      inFlight++;
      h.maxInFlight = Math.max(h.maxInFlight, inFlight);
      return new Promise<Answer>((resolve, reject) => {
        const finish = () => inFlight--;
        signal.addEventListener('abort', () => {
          finish();
          reject(new Error('aborted'));
        });
        if (answer === 'hang') return;
        clock.scheduler.schedule(() => {
          if (signal.aborted) return;
          finish();
          if (answer instanceof Error) reject(answer);
          else resolve(answer);
        }, latency);
      });
    },
    classify: (res) => (res === 'ok' ? { kind: 'ok' } : (res as Verdict<Req>)),
    isRetriableError: (err) => (err as Error).message === 'reset',
    ...opts.parts,
  };
  const sink = requestSink(parts, { limits: { maxEvents: opts.maxEvents ?? 100, maxBytes: Infinity, timeoutMs: 5 }, request: request(opts.request) }, ctx);
  h.done = new Promise<void>((resolve, reject) => h.input.pipe(sink).subscribe({ next: (d) => h.deliveries.push(d), error: reject, complete: resolve }));
  return h;
}

const partial = (deliveredNs: number[], restNs: number[], all: Event[]): Verdict<Req> => ({
  kind: 'partial',
  delivered: all.filter((e) => deliveredNs.includes(numOf(e))),
  rest: { events: all.filter((e) => restNs.includes(numOf(e))), bytes: restNs.length * 10, ns: restNs },
  error: new Error(`${restNs.length} records failed`),
});

describe('connectors/shared/request-sink', () => {
  it('resends only the records a partial answer failed; the others are delivered once', async () => {
    const events = [0, 1, 2, 3, 4].map(ev);
    const h = harness([partial([0, 2, 4], [1, 3], events), partial([1], [3], events), 'ok']);
    h.input.next(events);
    h.input.complete();
    await h.clock.advanceTo(10_000);
    await h.done;
    expect(h.sends.map((s) => s.ns)).to.deep.equal([[0, 1, 2, 3, 4], [1, 3], [3]]);
    // the end of input flushes at once; latency 10, then Fibonacci waits of 1 s and 1 s
    expect(h.sends.map((s) => s.at)).to.deep.equal([0, 1010, 2020]);
    expect(nums(h.deliveries, 'delivered')).to.deep.equal([0, 1, 2, 3, 4]);
    expect(h.deliveries.map((d) => d.events.length)).to.deep.equal([3, 1, 1]);
    expect(h.ctx.metric('component_errors_total', { error_type: 'request_failed', stage: 'sending' })).to.equal(2);
  });

  it('a partial answer on the last attempt ends only the failed records errored', async () => {
    const events = [0, 1, 2].map(ev);
    const h = harness([partial([0, 2], [1], events)], { request: { retry_attempts: 0 } });
    h.input.next(events);
    h.input.complete();
    await h.clock.advanceTo(100);
    await h.done;
    expect(nums(h.deliveries, 'delivered')).to.deep.equal([0, 2]);
    expect(nums(h.deliveries, 'errored')).to.deep.equal([1]);
  });

  describe('a partial answer that refuses some records for good', () => {
    // each event's encoded size is its number plus one, and a request's bytes are the sum of its items' sizes
    const sizeOf = (n: number) => n + 1;
    const sized: Partial<RequestSinkParts<Item, Req, Answer>> = {
      encode: (event) => ({ event, size: sizeOf(numOf(event)), key: undefined, n: numOf(event) }),
      build: (items) => ({ events: items.map((i) => i.event), bytes: items.reduce((b, i) => b + i.size, 0), ns: items.map((i) => i.n) }),
    };
    const pick = (ns: number[], all: Event[]) => ns.map((n) => all.find((e) => numOf(e) === n)!);
    const answer = (all: Event[], deliveredNs: number[], refusedNs: number[], restNs: number[], reason = new Error('refused for good')): Verdict<Req> => ({
      kind: 'partial',
      delivered: pick(deliveredNs, all),
      refused: { events: pick(refusedNs, all), reason },
      rest: { events: pick(restNs, all), bytes: restNs.reduce((b, n) => b + sizeOf(n), 0), ns: restNs },
      error: new Error(`${restNs.length} records failed`),
    });
    const trace = (ds: readonly Delivery[]) => ds.map((d) => ({ status: d.status, ns: d.events.map(numOf), bytes: d.bytes }));
    const sentBytes = (ds: readonly Delivery[]) => ds.filter((d) => d.status === 'delivered').reduce((b, d) => b + d.bytes, 0);

    it('rejects the refused once, resends only the rest, then delivers it; each delivered part reports its own bytes', async () => {
      const events = [0, 1, 2, 3, 4, 5].map(ev);
      const reason = new Error('KMSAccessDeniedException');
      const failures: unknown[] = [];
      const h = harness([answer(events, [0, 3], [2, 5], [1, 4], reason), 'ok'], { parts: { ...sized, attemptFailed: (err) => failures.push(err) } });
      h.input.next(events);
      h.input.complete();
      await h.clock.advanceTo(10_000);
      await h.done;
      expect(h.sends.map((s) => s.ns)).to.deep.equal([[0, 1, 2, 3, 4, 5], [1, 4]]);
      // per answer the delivered part, then the refused part; the rest when its own answer comes
      expect(trace(h.deliveries)).to.deep.equal([
        { status: 'delivered', ns: [0, 3], bytes: 1 + 4 },
        { status: 'rejected', ns: [2, 5], bytes: 0 },
        { status: 'delivered', ns: [1, 4], bytes: 2 + 5 },
      ]);
      expect(sentBytes(h.deliveries), 'the request minus the refused records').to.equal(21 - (3 + 6));
      // one failure for the refused records (as a rejected request counts), one for the attempt retried
      expect(h.ctx.metric('component_errors_total', { error_type: 'request_failed', stage: 'sending' })).to.equal(2);
      expect(failures[0]).to.equal(reason);
      expect((failures[1] as Error).message).to.equal('2 records failed');
      expect(failures).to.have.length(2);
    });

    it('with nothing left to send the request ends: no retry, no empty delivery', async () => {
      const events = [0, 1, 2].map(ev);
      const h = harness([answer(events, [0, 2], [1], [])], { parts: sized });
      h.input.next(events);
      h.input.complete();
      await h.clock.advanceTo(10_000);
      await h.done;
      expect(h.sends).to.have.length(1);
      expect(trace(h.deliveries)).to.deep.equal([
        { status: 'delivered', ns: [0, 2], bytes: 1 + 3 },
        { status: 'rejected', ns: [1], bytes: 0 },
      ]);
      expect(h.ctx.metric('component_errors_total', { error_type: 'request_failed', stage: 'sending' })).to.equal(1);
    });

    it('every record refused: the events are rejected once and nothing is sent again', async () => {
      const events = [0, 1].map(ev);
      const h = harness([answer(events, [], [0, 1], [])], { parts: sized });
      h.input.next(events);
      h.input.complete();
      await h.clock.advanceTo(10_000);
      await h.done;
      expect(h.sends).to.have.length(1);
      expect(trace(h.deliveries)).to.deep.equal([{ status: 'rejected', ns: [0, 1], bytes: 0 }]);
    });

    it('on the last attempt the refused end rejected and the rest errored', async () => {
      const events = [0, 1, 2].map(ev);
      const h = harness([answer(events, [0], [1], [2])], { parts: sized, request: { retry_attempts: 0 } });
      h.input.next(events);
      h.input.complete();
      await h.clock.advanceTo(10_000);
      await h.done;
      expect(trace(h.deliveries)).to.deep.equal([
        { status: 'delivered', ns: [0], bytes: 1 },
        { status: 'rejected', ns: [1], bytes: 0 },
        { status: 'errored', ns: [2], bytes: 0 },
      ]);
    });

    it('a compressed request shares its wire bytes among the delivered part in proportion to the encoded sizes', async () => {
      const events = [0, 1, 2, 3].map(ev);
      const sizes = [10, 30, 20, 40];
      const h = harness([answer(events, [1, 3], [], [0, 2]), 'ok'], {
        parts: {
          encode: (event) => ({ event, size: sizes[numOf(event)]!, key: undefined, n: numOf(event) }),
          // half the encoded size on the wire
          build: (items) => ({ events: items.map((i) => i.event), bytes: items.reduce((b, i) => b + i.size, 0) / 2, ns: items.map((i) => i.n) }),
        },
      });
      h.input.next(events);
      h.input.complete();
      await h.clock.advanceTo(10_000);
      await h.done;
      expect(trace(h.deliveries)[0]).to.deep.equal({ status: 'delivered', ns: [1, 3], bytes: (50 * (30 + 40)) / 100 });
    });
  });

  it('aborts an attempt at timeout_secs and retries it', async () => {
    const h = harness(['hang', 'ok']);
    h.input.next([ev(1)]);
    h.input.complete();
    await h.clock.advanceTo(1_999);
    expect(h.sends).to.have.length(1);
    expect(h.sends[0]!.signal.aborted).to.equal(false);
    await h.clock.advanceTo(2_000);
    expect(h.sends[0]!.signal.aborted, 'aborted at the timeout').to.equal(true);
    await h.clock.advanceTo(10_000);
    await h.done;
    expect(h.sends.map((s) => s.at)).to.deep.equal([0, 3000]);
    expect(h.sends[1]!.signal.aborted, 'a finished attempt is not aborted').to.equal(false);
    expect(nums(h.deliveries, 'delivered')).to.deep.equal([1]);
  });

  it('gives a request to `finished` once, after its last attempt, never between attempts', async () => {
    const finished: { at: number; ns: number[]; sends: number }[] = [];
    const h = harness(['hang', 'ok'], { parts: { finished: (req) => finished.push({ at: h.clock.now, ns: req.ns, sends: h.sends.length }) } });
    h.input.next([ev(1)]);
    h.input.complete();
    await h.clock.advanceTo(2_500);
    expect(finished, 'the timed-out attempt is retried: its body is still needed').to.deep.equal([]);
    await h.clock.advanceTo(10_000);
    await h.done;
    expect(finished).to.deep.equal([{ at: 3010, ns: [1], sends: 2 }]);
  });

  it('gives a request given up to `finished` after its last attempt was aborted', async () => {
    const aborted: boolean[][] = [];
    const h = harness(['hang', 'hang'], { request: { retry_attempts: 1 }, parts: { finished: () => aborted.push(h.sends.map((s) => s.signal.aborted)) } });
    h.input.next([ev(1)]);
    h.input.complete();
    await h.clock.advanceTo(60_000);
    await h.done;
    expect(nums(h.deliveries, 'errored')).to.deep.equal([1]);
    expect(aborted).to.deep.equal([[true, true]]);
  });

  it('rejects at once what the service rejects; counts one failed request', async () => {
    const h = harness([{ kind: 'reject', error: new Error('bad') }]);
    h.input.next([ev(1), ev(2)]);
    h.input.complete();
    await h.clock.advanceTo(10_000);
    await h.done;
    expect(h.sends).to.have.length(1);
    expect(nums(h.deliveries, 'rejected')).to.deep.equal([1, 2]);
    expect(h.ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(1);
  });

  it('retries what the service asks to retry up to retry_attempts, then ends it errored', async () => {
    const retry: Verdict<Req> = { kind: 'retry', error: new Error('busy') };
    const h = harness([retry, retry, retry, retry], { request: { retry_attempts: 2 } });
    h.input.next([ev(1)]);
    h.input.complete();
    await h.clock.advanceTo(60_000);
    await h.done;
    expect(h.sends).to.have.length(3);
    expect(nums(h.deliveries, 'errored')).to.deep.equal([1]);
    expect(h.ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(3);
  });

  it('uses the status a verdict gives for events given up', async () => {
    const h = harness([{ kind: 'reject', error: new Error('not implemented'), status: 'errored' }]);
    h.input.next([ev(1)]);
    h.input.complete();
    await h.clock.advanceTo(100);
    await h.done;
    expect(nums(h.deliveries, 'errored')).to.deep.equal([1]);
  });

  it('retries retriable transport errors, not others', async () => {
    const h = harness([new Error('reset'), new Error('bug')]);
    h.input.next([ev(1)]);
    h.input.complete();
    await h.clock.advanceTo(60_000);
    await h.done;
    expect(h.sends).to.have.length(2);
    expect(nums(h.deliveries, 'rejected')).to.deep.equal([1]);
  });

  it('keeps at most `concurrency` requests in flight and closes demand at the limit', async () => {
    const h = harness([], { request: { concurrency: 2 }, maxEvents: 1, latency: 100 });
    h.input.next([1, 2, 3, 4, 5].map(ev));
    await h.clock.advanceTo(1);
    expect(h.sends).to.have.length(2);
    expect(h.ctx.demand.isOpen).to.equal(false);
    await h.clock.advanceTo(101);
    expect(h.sends).to.have.length(4);
    h.input.complete();
    await h.clock.advanceTo(1_000);
    await h.done;
    expect(h.maxInFlight).to.equal(2);
    expect(h.ctx.demand.isOpen).to.equal(true);
    expect(nums(h.deliveries, 'delivered')).to.deep.equal([1, 2, 3, 4, 5]);
  });

  it('an adaptive limit grows on fast successes and shrinks on back-pressure', async () => {
    const script: Answer[] = [];
    const h = harness(script, { request: { concurrency: 'adaptive', retry_attempts: 0 }, maxEvents: 1, latency: 10 });
    const limit = () => h.ctx.registry.sum('adaptive_concurrency_limit', { component_id: 'out' });
    let n = 0;
    const round = async () => {
      h.input.next(Array.from({ length: 20 }, () => ev(n++)));
      await h.clock.advanceTo(h.clock.now + 50);
    };
    for (let i = 0; i < 20; i++) await round();
    const grown = limit();
    expect(grown).to.be.greaterThan(2);
    for (let i = 0; i < 400; i++) script.push({ kind: 'retry', error: new Error('busy') });
    for (let i = 0; i < 10; i++) await round();
    expect(limit()).to.be.lessThan(grown);
    h.input.complete();
    await h.clock.advanceTo(h.clock.now + 1_000);
    await h.done;
    expect(h.deliveries.reduce((k, d) => k + d.events.length, 0)).to.equal(n);
  });

  it('rejects alone an event the encoder cannot take; the rest are delivered', async () => {
    const h = harness([], {
      parts: {
        encode: (event) => {
          if (numOf(event) === 2) throw new RangeError('Maximum call stack size exceeded');
          return { event, size: 1, key: undefined, n: numOf(event) };
        },
      },
    });
    h.input.next([1, 2, 3].map(ev));
    h.input.complete();
    await h.clock.advanceTo(1_000);
    await h.done;
    expect(nums(h.deliveries, 'rejected')).to.deep.equal([2]);
    expect(nums(h.deliveries, 'delivered')).to.deep.equal([1, 3]);
    expect(h.ctx.metric('component_errors_total', { error_type: 'encoder_failed', stage: 'sending' })).to.equal(1);
  });

  it('events that are their own encoded items (a worker encoded them) mix with others and rejections, in order', async () => {
    // an event that is its own item, as a pipeline worker's pre-encoded event is
    const own = (n: number) => {
      const e = ev(n);
      return Object.assign(e, { size: 1, key: undefined as string | undefined, n, event: e });
    };
    const built: number[][] = [];
    const h = harness([], {
      maxEvents: 1000,
      parts: {
        encode: (event) => {
          if (numOf(event) % 5 === 0) throw new Error('cannot encode');
          return 'size' in event ? (event as unknown as Item) : { event, size: 1, key: undefined, n: numOf(event) };
        },
        build: (items) => {
          built.push(items.map((i) => i.n));
          return { events: items.map((i) => i.event), bytes: items.length * 10, ns: items.map((i) => i.n) };
        },
      },
    });
    // own items, then one encoded anew, a rejection, own again; all own; a rejection among own items
    h.input.next([own(1), own(2), ev(3), own(4), own(5), own(6)]);
    h.input.next([own(7), own(8)]);
    h.input.next([own(9), own(10), own(11)]);
    h.input.complete();
    await h.clock.advanceTo(1_000);
    await h.done;
    expect(built.flat()).to.deep.equal([1, 2, 3, 4, 6, 7, 8, 9, 11]);
    expect(nums(h.deliveries, 'rejected')).to.deep.equal([5, 10]);
    expect(nums(h.deliveries, 'delivered')).to.deep.equal([1, 2, 3, 4, 6, 7, 8, 9, 11]);
  });

  it('batches per partition key; an event whose key does not render is rejected and counted', async () => {
    const h = harness([], {
      parts: {
        partition: (item) => {
          if (item.n === 3) throw new TemplateError('{{ tenant }}', 'missing field');
          return String((item.event as unknown as { fields: { tenant: string } }).fields.tenant);
        },
      },
    });
    h.input.next([1, 2, 3, 4, 5, 6].map(ev));
    h.input.complete();
    await h.clock.advanceTo(1_000);
    await h.done;
    expect(h.sends.map((s) => s.ns).sort()).to.deep.equal([[1, 5], [2, 4, 6]]);
    expect(nums(h.deliveries, 'rejected')).to.deep.equal([3]);
    expect(h.ctx.metric('component_errors_total', { error_type: 'template_failed', stage: 'processing' })).to.equal(1);
  });

  it('a request that cannot be built is rejected and the sink goes on', async () => {
    let calls = 0;
    const h = harness([], {
      maxEvents: 1,
      parts: {
        build: (items) => {
          if (calls++ === 0) throw new Error('compression failed');
          return { events: items.map((i) => i.event), bytes: 1, ns: items.map((i) => i.n) };
        },
      },
    });
    h.input.next([ev(1), ev(2)]);
    h.input.complete();
    await h.clock.advanceTo(1_000);
    await h.done;
    expect(nums(h.deliveries, 'rejected')).to.deep.equal([1]);
    expect(nums(h.deliveries, 'delivered')).to.deep.equal([2]);
  });

  it('events the build step refuses settle rejected unsent; a request left with no events is not sent', async () => {
    const h = harness([], {
      maxEvents: 2,
      parts: {
        // refuses odd numbers
        build: (items) => {
          const kept = items.filter((i) => i.n % 2 === 0);
          return { events: kept.map((i) => i.event), bytes: kept.length, ns: kept.map((i) => i.n), refused: items.filter((i) => i.n % 2 === 1).map((i) => i.event) };
        },
      },
    });
    h.input.next([ev(1), ev(2), ev(3), ev(5)]);
    h.input.complete();
    await h.clock.advanceTo(1_000);
    await h.done;
    expect(h.sends.map((s) => s.ns)).to.deep.equal([[2]]);
    expect(nums(h.deliveries, 'rejected')).to.deep.equal([1, 3, 5]);
    expect(nums(h.deliveries, 'delivered')).to.deep.equal([2]);
  });

  it('a later confirmation settles the events without holding the concurrency permit', async () => {
    const confirmations: ((s: 'delivered' | 'errored') => void)[] = [];
    const h = harness([], {
      maxEvents: 1,
      parts: { confirm: () => new Promise((resolve) => confirmations.push(resolve)) },
    });
    h.input.next([ev(1), ev(2)]);
    await h.clock.advanceTo(100);
    expect(h.sends, 'the second request went out before the first was confirmed').to.have.length(2);
    expect(h.deliveries).to.have.length(0);
    confirmations[1]!('delivered');
    confirmations[0]!('errored');
    h.input.complete();
    await h.clock.advanceTo(200);
    await h.done;
    expect(nums(h.deliveries, 'delivered')).to.deep.equal([2]);
    expect(nums(h.deliveries, 'errored')).to.deep.equal([1]);
  });
});
