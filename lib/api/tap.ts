/**
 * Tap (`outputEventsByComponentIdPatterns`, as in Vector): observes the outputs matching the
 * patterns, re-evaluated on every topology change. Events are reservoir-sampled into `limit` slots
 * as they pass; only the chosen ones are copied, and each output holds at most 100 of them until
 * the next drain, dropping the newest beyond that, so tapping never slows or blocks the pipeline.
 * The sample goes out every interval in arrival order. Notifications go out at once, each as a
 * one-item list.
 */
import { Observable, type SchedulerLike, type Subscription, interval } from 'rxjs';
import type { Event, EventBatch } from '../event.js';
import { globToRegExp } from '../topology/graph.js';
import { type ApiTopology, recordsOf } from './component-index.js';
import { tapCopy } from './event-view.js';

/** Events an output may hold between drains; the newest beyond are dropped. */
export const TAP_BUFFER_EVENTS = 100;

/** A sampled event with the component whose output it left. */
export interface TappedEvent {
  readonly kind: 'event';
  readonly componentId: string;
  readonly componentType: string;
  readonly componentKind: 'source' | 'transform';
  readonly event: Event;
}

/** The `Notification` union members. */
export type TapNotification =
  | { readonly type: 'Matched'; readonly pattern: string }
  | { readonly type: 'NotMatched'; readonly pattern: string }
  | { readonly type: 'InvalidMatch'; readonly pattern: string; readonly invalidMatches: string[] };

/** An `EventNotification`: what happened and its message text. */
export interface TapNotice {
  readonly kind: 'notification';
  readonly notification: TapNotification;
  readonly message: string;
}

/** What the tap stream carries. */
export type TapItem = TappedEvent | TapNotice;

/** The subscription's arguments plus the clock, coin and drain hook tests replace. */
export interface TapOptions {
  readonly outputsPatterns: readonly string[];
  readonly inputsPatterns: readonly string[];
  readonly intervalMs: number;
  readonly limit: number;
  readonly scheduler: SchedulerLike;
  /** Uniform in [0, 1); the reservoir's coin. */
  readonly random?: () => number;
  /** Runs the drain of the output buffers after the current pipeline pass; setImmediate by default. */
  readonly defer?: (fn: () => void) => void;
  /** Counts events dropped because an output buffer was full. */
  readonly onDrop?: (n: number) => void;
}

/** Checks `limit` (1..10000) and `interval` (10..60000) as the reference says. */
export function checkTapArgs(limit: number, intervalMs: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new Error(`limit must be between 1 and 10000, got ${limit}`);
  if (!Number.isInteger(intervalMs) || intervalMs < 10 || intervalMs > 60_000) throw new Error(`interval must be between 10 and 60000 milliseconds, got ${intervalMs}`);
}

/** Rust's debug form of a string list, as the warning texts show it: `["a", "b"]`. */
const listText = (ids: readonly string[]) => `[${ids.map((i) => JSON.stringify(i)).join(', ')}]`;

/** Vector's notification texts, word for word (its `vector tap` client prints them). */
export const notices = {
  matched: (pattern: string): TapNotice => ({ kind: 'notification', notification: { type: 'Matched', pattern }, message: `[tap] Pattern '${pattern}' successfully matched.` }),
  notMatched: (pattern: string): TapNotice => ({ kind: 'notification', notification: { type: 'NotMatched', pattern }, message: `[tap] Pattern '${pattern}' failed to match: will retry on configuration reload.` }),
  invalidInput: (pattern: string, ids: string[]): TapNotice => ({
    kind: 'notification',
    notification: { type: 'InvalidMatch', pattern, invalidMatches: ids },
    message: `[tap] Warning: source inputs cannot be tapped. Input pattern '${pattern}' matches sources ${listText(ids)}`,
  }),
  invalidOutput: (pattern: string, ids: string[]): TapNotice => ({
    kind: 'notification',
    notification: { type: 'InvalidMatch', pattern, invalidMatches: ids },
    message: `[tap] Warning: sink outputs cannot be tapped. Output pattern '${pattern}' matches sinks ${listText(ids)}`,
  }),
};

/** A compiled glob; a pattern that does not compile matches nothing. */
function matcher(pattern: string): (s: string) => boolean {
  try {
    const re = globToRegExp(pattern);
    return (s) => re.test(s);
  } catch {
    return () => false;
  }
}

/**
 * Reservoir sampling over one interval with Algorithm L: the first `limit` events fill the slots,
 * later ones replace a random slot at geometrically growing gaps, so a uniform sample of `limit`
 * costs O(1) per batch plus O(1) per chosen event, and only chosen events are copied.
 */
export class Reservoir {
  private slots: { seq: number; item: TappedEvent }[] = [];
  /** Events seen this interval. */
  private seen = 0;
  /** Index (in `seen` order) of the next event to take once the slots are full. */
  private next = 0;
  private w = 0;
  constructor(
    private readonly limit: number,
    private readonly random: () => number,
  ) {}
  /** Uniform in (0, 1): the logarithms below need a non-zero value. */
  private u(): number {
    const x = this.random();
    return x > 0 ? x : Number.MIN_VALUE;
  }
  private skip(): void {
    this.w *= Math.exp(Math.log(this.u()) / this.limit);
    const gap = Math.floor(Math.log(this.u()) / Math.log(1 - this.w));
    this.next += (Number.isFinite(gap) ? gap : 0) + 1;
  }
  /**
   * Offers `n` events; calls `take(i, slot)` for each one chosen (`i` is its index among the `n`).
   * The caller places what it takes with `put`.
   */
  offer(n: number, take: (i: number, slot: number) => void): void {
    let i = 0;
    while (i < n && this.seen + i < this.limit) {
      take(i, this.seen + i);
      i++;
    }
    if (this.seen < this.limit && this.seen + i >= this.limit) {
      // the slots just filled: draw the first gap
      this.w = 1;
      this.next = this.limit - 1;
      this.skip();
    }
    const end = this.seen + n;
    while (this.seen + i < end && this.next < end) {
      i = this.next - this.seen;
      take(i, Math.floor(this.u() * this.limit));
      this.skip();
      i++;
    }
    this.seen = end;
  }
  /** Places an event taken by `offer`; `seq` keeps arrival order. */
  put(slot: number, seq: number, item: TappedEvent): void {
    // outputs drain one after another, so slots may fill out of order: a hole waits for its event
    this.slots[slot] = { seq, item };
  }
  get seenCount(): number {
    return this.seen;
  }
  /** The sample in arrival order; starts the next interval. */
  take(): TappedEvent[] {
    const out = this.slots.filter((x) => x !== undefined).sort((a, b) => a.seq - b.seq).map((x) => x.item);
    this.slots = [];
    this.seen = 0;
    this.next = 0;
    return out;
  }
}

/** One tapped output: its bounded buffer and the handle that detaches it. */
interface Pending {
  readonly slot: number;
  readonly seq: number;
  readonly item: TappedEvent;
}
interface Attached {
  readonly pending: Pending[];
  readonly detach: () => void;
}

/** The tap stream of one subscription. */
export function tap$(topology: ApiTopology, opts: TapOptions): Observable<TapItem[]> {
  return new Observable<TapItem[]>((subscriber) => {
    const reservoir = new Reservoir(opts.limit, opts.random ?? Math.random);
    const defer = opts.defer ?? ((fn: () => void) => void setImmediate(fn));
    const attached = new Map<string, Attached>();
    let lastMatched = new Set<string>();
    let drainScheduled = false;
    let closed = false;

    // chosen events wait here (at most TAP_BUFFER_EVENTS per output) until the drain places them
    const drain = () => {
      drainScheduled = false;
      for (const a of attached.values()) {
        for (let i = 0; i < a.pending.length; i++) {
          const p = a.pending[i]!;
          reservoir.put(p.slot, p.seq, p.item);
        }
        a.pending.length = 0;
      }
    };
    const observer = (pending: Pending[], componentId: string, componentType: string, componentKind: 'source' | 'transform') => (batch: EventBatch) => {
      const base = reservoir.seenCount;
      let dropped = 0;
      reservoir.offer(batch.length, (i, slot) => {
        if (pending.length >= TAP_BUFFER_EVENTS) dropped++;
        else {
          // this runs inside the producer's emit: an event that cannot be copied is skipped, never thrown
          try {
            pending.push({ slot, seq: base + i, item: { kind: 'event', componentId, componentType, componentKind, event: tapCopy(batch[i]!) } });
          } catch {
            dropped++;
          }
        }
      });
      if (dropped > 0) opts.onDrop?.(dropped);
      if (pending.length > 0 && !drainScheduled) {
        drainScheduled = true;
        defer(() => {
          if (!closed) drain();
        });
      }
    };

    const evaluate = () => {
      const records = recordsOf(topology.currentGraph);
      const outputPatterns = opts.outputsPatterns.map((p) => ({ pattern: p, test: matcher(p) }));
      // an input pattern taps the outputs feeding the transforms and sinks it matches
      const inputPatterns = opts.inputsPatterns.map((p) => {
        const test = matcher(p);
        const feeds = new Set<string>();
        for (const r of records.values()) if (r.kind !== 'source' && test(r.id)) for (const i of r.inputs) feeds.add(i.id);
        return { pattern: p, test: (outputId: string) => feeds.has(outputId) };
      });
      const matched = new Set<string>();
      const want = new Map<string, { componentId: string; componentType: string; componentKind: 'source' | 'transform' }>();
      for (const r of records.values()) {
        if (r.kind === 'sink') continue;
        for (const o of r.outputs) {
          const found = [...outputPatterns, ...inputPatterns].filter((p) => p.test(o.id));
          if (found.length === 0) continue;
          for (const p of found) matched.add(p.pattern);
          want.set(o.id, { componentId: r.id, componentType: r.type, componentKind: r.kind });
        }
      }
      for (const [id, a] of attached) if (!want.has(id)) {
        a.detach();
        attached.delete(id);
      }
      for (const [id, w] of want) {
        if (attached.has(id)) continue;
        const pending: Pending[] = [];
        const detach = topology.tapOutput(id, observer(pending, w.componentId, w.componentType, w.componentKind));
        if (detach) attached.set(id, { pending, detach });
      }

      const out: TapNotice[] = [];
      for (const p of matched) if (!lastMatched.has(p)) out.push(notices.matched(p));
      for (const p of new Set([...opts.outputsPatterns, ...opts.inputsPatterns])) if (!matched.has(p)) out.push(notices.notMatched(p));
      for (const p of opts.inputsPatterns) {
        const test = matcher(p);
        const ids = [...records.values()].filter((r) => r.kind === 'source' && test(r.id)).map((r) => r.id);
        if (ids.length) out.push(notices.invalidInput(p, ids));
      }
      for (const p of opts.outputsPatterns) {
        const test = matcher(p);
        const ids = [...records.values()].filter((r) => r.kind === 'sink' && test(r.id)).map((r) => r.id);
        if (ids.length) out.push(notices.invalidOutput(p, ids));
      }
      lastMatched = matched;
      for (const n of out) subscriber.next([n]);
    };

    const subs: Subscription[] = [];
    evaluate();
    // runs inside the topology's reload: a failure ends this subscription, never the reload
    subs.push(
      topology.changes$.subscribe(() => {
        try {
          evaluate();
        } catch (err) {
          subscriber.error(err);
        }
      }),
    );
    subs.push(
      interval(opts.intervalMs, opts.scheduler).subscribe(() => {
        drain();
        const sample = reservoir.take();
        if (sample.length > 0) subscriber.next(sample);
      }),
    );
    return () => {
      closed = true;
      for (const s of subs) s.unsubscribe();
      for (const a of attached.values()) a.detach();
      attached.clear();
    };
  });
}
