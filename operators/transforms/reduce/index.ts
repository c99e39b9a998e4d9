/**
 * `reduce`: merges log events of a group into one event per transaction (as Vector's
 * `reduce` does). A transaction ends on `ends_when`, before a `starts_when` event, after
 * `expireAfterMs` without events (checked every `flushPeriodMs`), or when the input completes.
 * Timers run on the given scheduler, so virtual time drives them in tests.
 */
import { Observable, type OperatorFunction, type SchedulerLike, type Subscription, asyncScheduler } from 'rxjs';
import { type Event, EventMetadata, type EventBatch, LogEvent } from '../../../lib/event.js';
import { type Path, type Segment, getPath, parsePath } from '../../../lib/path.js';
import { type ObjectValue, type Value, isObject } from '../../../lib/value.js';
import { type MergeStrategy, type Merger, createMerger, valueKey } from './merge.js';

export { MERGE_STRATEGIES, type MergeStrategy, type Merger, createMerger, valueKey } from './merge.js';

/** Hooks for internal events; all optional. */
export interface ReduceEvents {
  /** Groups flushed because they expired (spec: `stale_events_flushed_total`). */
  staleFlushed?(count: number): void;
  /** A value could not be merged (wrong kind); it was ignored. */
  mergeFailed?(field: string, reason: string): void;
  /** A condition threw; it counts as false. */
  conditionFailed?(which: 'starts_when' | 'ends_when', error: unknown): void;
}

/** Options of {@link reduce}, the reduce config in camelCase. */
export interface ReduceOptions {
  /** Field paths whose values form the group key; none = one group. */
  groupBy?: readonly string[];
  /** Field path -> strategy; applies to the whole value at that path. */
  mergeStrategies?: Readonly<Record<string, MergeStrategy>>;
  /** True for the first event of a transaction; the open one is flushed without it. */
  startsWhen?: (e: Event) => boolean;
  /** True for the last event of a transaction; it is flushed with it. */
  endsWhen?: (e: Event) => boolean;
  /** Idle time after which a transaction is flushed; default 30000. */
  expireAfterMs?: number;
  /** Period of expiry checks; default 1000. */
  flushPeriodMs?: number;
  scheduler?: SchedulerLike;
  events?: ReduceEvents;
}

/** A node of the strategy trie: a strategy at this path, or deeper ones. */
interface StrategyNode {
  strategy?: MergeStrategy;
  children?: Map<string, StrategyNode>;
}

/** Builds the trie of configured paths; index segments are a build error (as in Vector). */
function strategyTrie(strategies: Readonly<Record<string, MergeStrategy>>): StrategyNode {
  const root: StrategyNode = {};
  for (const [text, strategy] of Object.entries(strategies)) {
    const path = parsePath(text);
    if (path.length === 0) throw new Error(`merge_strategies: "${text}" does not name a field`);
    let node = root;
    for (const seg of path) {
      if (typeof seg === 'number') throw new Error(`merge_strategies: "${text}" must not contain array indexes`);
      node.children ??= new Map();
      let next = node.children.get(seg);
      if (!next) node.children.set(seg, (next = {}));
      node = next;
    }
    node.strategy = strategy;
  }
  return root;
}

interface FieldState {
  readonly path: Path;
  readonly merger: Merger;
}

/** One open transaction of one group. */
class ReduceState {
  private readonly fields = new Map<string, FieldState>();
  readonly meta: EventMetadata;
  lastMs: number;
  constructor(
    first: LogEvent,
    now: number,
    private readonly trie: StrategyNode,
    private readonly events: ReduceEvents | undefined,
  ) {
    this.meta = new EventMetadata(first.meta.sourceId, first.meta.sourceType, undefined, first.meta.value);
    this.lastMs = now;
    this.add(first, now);
  }

  add(e: LogEvent, now: number): void {
    this.lastMs = now;
    // acknowledgements of every merged event complete with the merged one
    this.meta.absorb(e.meta);
    this.walk(e.fields, [], '', this.trie);
  }

  private walk(obj: ObjectValue, prefix: Segment[], prefixKey: string, node: StrategyNode | undefined): void {
    for (const key in obj) {
      const value = obj[key]!;
      const child = node?.children?.get(key);
      const pathKey = prefixKey === '' ? key : prefixKey + '\u0000' + key;
      if (child?.strategy !== undefined) this.merge(pathKey, prefix, key, value, child.strategy);
      else if (isObject(value) && hasKeys(value)) this.walk(value, [...prefix, key], pathKey, child);
      else this.merge(pathKey, prefix, key, value, undefined);
    }
  }

  private merge(pathKey: string, prefix: Segment[], key: string, value: Value, strategy: MergeStrategy | undefined): void {
    const existing = this.fields.get(pathKey);
    if (existing) {
      const err = existing.merger.add(value);
      if (err !== undefined) this.events?.mergeFailed?.(pathKey.replace(/\u0000/g, '.'), err);
      return;
    }
    const merger = createMerger(strategy, value);
    if (typeof merger === 'string') {
      this.events?.mergeFailed?.(pathKey.replace(/\u0000/g, '.'), merger);
      return;
    }
    this.fields.set(pathKey, { path: [...prefix, key], merger });
  }

  /** The merged event; fields are rebuilt from the mergers. */
  flush(): LogEvent {
    const fields: ObjectValue = {};
    for (const f of this.fields.values()) f.merger.insertInto(fields, f.path);
    return new LogEvent(fields, this.meta);
  }
}

function hasKeys(o: ObjectValue): boolean {
  for (const _ in o) return true;
  return false;
}

/** The reduce transform as an operator; flushes every open transaction when the input completes. */
export function reduce(options: ReduceOptions = {}): OperatorFunction<EventBatch, EventBatch> {
  const groupBy = (options.groupBy ?? []).map((p) => parsePath(p));
  const trie = strategyTrie(options.mergeStrategies ?? {});
  const expireAfterMs = options.expireAfterMs ?? 30_000;
  const periodMs = options.flushPeriodMs ?? 1000;
  if (!(periodMs > 0)) throw new Error('flush_period_ms must be greater than 0');
  if (options.startsWhen && options.endsWhen) throw new Error('only one of starts_when and ends_when can be set');
  const scheduler = options.scheduler ?? asyncScheduler;
  const events = options.events;
  const test = (which: 'starts_when' | 'ends_when', cond: ((e: Event) => boolean) | undefined, e: Event): boolean => {
    if (!cond) return false;
    try {
      return cond(e);
    } catch (err) {
      events?.conditionFailed?.(which, err);
      return false;
    }
  };
  const keyOf = (e: LogEvent): string => {
    if (groupBy.length === 0) return '';
    let k = '';
    for (let i = 0; i < groupBy.length; i++) k += valueKey(getPath(e.fields, groupBy[i]!)) + '\u0001';
    return k;
  };

  return (source) =>
    new Observable<EventBatch>((subscriber) => {
      const groups = new Map<string, ReduceState>();
      const startMs = scheduler.now();
      let timer: Subscription | undefined;

      // expiry checks tick every periodMs since subscription, only while a group is open
      const arm = () => {
        if (timer || groups.size === 0) return;
        const elapsed = (scheduler.now() - startMs) % periodMs;
        timer = scheduler.schedule(onTick, periodMs - elapsed);
      };
      const onTick = () => {
        timer = undefined;
        const now = scheduler.now();
        let stale: Event[] | undefined;
        for (const [k, s] of groups) {
          if (now - s.lastMs < expireAfterMs) continue;
          groups.delete(k);
          (stale ??= []).push(s.flush());
        }
        if (stale) {
          events?.staleFlushed?.(stale.length);
          subscriber.next(stale);
        }
        arm();
      };

      const upstream = source.subscribe({
        next(batch) {
          const now = scheduler.now();
          const out: Event[] = [];
          for (let i = 0; i < batch.length; i++) {
            const e = batch[i]!;
            if (e.type !== 'log') {
              out.push(e);
              continue;
            }
            const starts = test('starts_when', options.startsWhen, e);
            const ends = !starts && test('ends_when', options.endsWhen, e);
            const key = keyOf(e);
            const open = groups.get(key);
            if (starts) {
              if (open) out.push(open.flush());
              groups.set(key, new ReduceState(e, now, trie, events));
            } else if (ends) {
              if (open) {
                open.add(e, now);
                out.push(open.flush());
                groups.delete(key);
              } else out.push(new ReduceState(e, now, trie, events).flush());
            } else if (open) open.add(e, now);
            else groups.set(key, new ReduceState(e, now, trie, events));
          }
          if (out.length > 0) subscriber.next(out);
          arm();
        },
        error(err) {
          subscriber.error(err);
        },
        complete() {
          timer?.unsubscribe();
          timer = undefined;
          if (groups.size > 0) {
            const all: Event[] = [];
            for (const s of groups.values()) all.push(s.flush());
            groups.clear();
            subscriber.next(all);
          }
          subscriber.complete();
        },
      });
      return () => {
        upstream.unsubscribe();
        timer?.unsubscribe();
        groups.clear();
      };
    });
}
