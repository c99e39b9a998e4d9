/**
 * Entry order per stream (`out_of_order_action`): a store
 * before 2.4 refuses an entry older than the newest it holds for that stream. Each request's
 * streams are sorted by time; then, per (tenant, stream), entries older than the newest already
 * sent are dropped (`drop`), moved to that newest time (`rewrite_timestamp`) or sent as they are
 * (`accept`). weir keys the state per stream, which is the store's own rule (Vector 0.28 keyed it per tenant).
 */
import type { Event } from '../../../lib/event.js';
import type { OUT_OF_ORDER_ACTIONS } from './config.js';
import type { Entry } from './encoder.js';

/** Entries of one stream in one request. */
export interface StreamGroup {
  readonly stream: Entry['stream'];
  readonly entries: Entry[];
}

/** One `out_of_order_action` value. */
export type OutOfOrderAction = (typeof OUT_OF_ORDER_ACTIONS)[number];

/** Counters ordering reports to (events.ts). */
export interface OrderingEvents {
  dropped(events: number): void;
  rewritten(events: number): void;
}

/** Orders the streams of one request; returns the events dropped (never sent). */
export type Orderer = (tenant: string, groups: readonly StreamGroup[]) => Event[];

/** Ascending time; `sort` is stable, so entries of one instant keep their arrival order. */
const byTime = (a: Entry, b: Entry) => a.ms - b.ms || a.ns - b.ns;

/** Newest time sent per stream. */
interface Newest {
  ms: number;
  ns: number;
}

/**
 * The orderer of one sink. With `drop` and `rewrite_timestamp` it keeps the newest time sent per
 * (tenant, stream) for the sink's lifetime, so requests must be built one at a time, in order
 * (the sink forces concurrency 1).
 */
export function createOrderer(action: OutOfOrderAction, events: OrderingEvents): Orderer {
  if (action === 'accept')
    return (_tenant, groups) => {
      for (const g of groups) if (g.entries.length > 1) g.entries.sort(byTime);
      return [];
    };
  const newest = new Map<string, Newest>();
  return (tenant, groups) => {
    const dropped: Event[] = [];
    let rewritten = 0;
    for (const g of groups) {
      const entries = g.entries;
      if (entries.length > 1) entries.sort(byTime);
      const key = tenant + '\u0000' + g.stream.text;
      const last = newest.get(key);
      if (last) {
        let kept = 0;
        for (let i = 0; i < entries.length; i++) {
          const e = entries[i]!;
          // equal times are fine: only an older entry is out of order
          if (e.ms < last.ms || (e.ms === last.ms && e.ns < last.ns)) {
            if (action === 'drop') {
              dropped.push(e.event);
              continue;
            }
            e.ms = last.ms;
            e.ns = last.ns;
            rewritten++;
          }
          entries[kept++] = e;
        }
        entries.length = kept;
      }
      const top = entries[entries.length - 1];
      if (top && (!last || top.ms > last.ms || (top.ms === last.ms && top.ns > last.ns))) newest.set(key, { ms: top.ms, ns: top.ns });
    }
    if (dropped.length > 0) events.dropped(dropped.length);
    if (rewritten > 0) events.rewritten(rewritten);
    return dropped;
  };
}
