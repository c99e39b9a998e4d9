/** Components only tests use: sinks that collect or stall, a source fed by hand. */
import * as v from 'valibot';
import { NEVER, Observable, Subject, map, throwError } from 'rxjs';
import { defineSink, defineSource, type ComponentDef, type ComponentKind } from '../../lib/component.js';
import type { Delivery, EventBatch } from '../../lib/event.js';
import { sinkObject } from '../../lib/config/options/envelope.js';
import type { Catalog } from '../../lib/config/load.js';
import { components } from '../../connectors/index.js';

/** Batches received by `collect` sinks, by sink id. */
export const collected = new Map<string, EventBatch[]>();

export const collectSink = defineSink({
  type: 'test_collect',
  summary: 'test: keeps every batch in memory',
  schema: sinkObject('test_collect', {}),
  input: 'any',
  build: (_c, ctx) =>
    map((batch: EventBatch): Delivery => {
      const list = collected.get(ctx.id) ?? [];
      list.push(batch);
      collected.set(ctx.id, list);
      return { status: 'delivered', events: batch, bytes: 0 };
    }),
});

/** Takes one batch, then never delivers and never asks for more: a destination that hangs. */
export const stuckSink = defineSink({
  type: 'test_stuck',
  summary: 'test: accepts one batch and hangs',
  schema: sinkObject('test_stuck', {}),
  input: 'any',
  build: (_c, ctx) => (source) =>
    new Observable<Delivery>(() => {
      const sub = source.subscribe(() => ctx.demand.close());
      return () => sub.unsubscribe();
    }),
});

/** Events pushed by the test through `feeds.get(id)`. */
export const feeds = new Map<string, Subject<EventBatch>>();
export const feedSource = defineSource({
  type: 'test_feed',
  summary: 'test: emits what the test pushes',
  /** `data_type`: what the feed declares it emits (log by default). */
  schema: v.strictObject({ type: v.literal('test_feed'), data_type: v.optional(v.picklist(['log', 'metric', 'any'])) }),
  outputs: (c) => [{ type: c.data_type ?? 'log' }],
  acknowledges: true,
  build: (_c, ctx) => {
    const s = feeds.get(ctx.id) ?? new Subject<EventBatch>();
    feeds.set(ctx.id, s);
    return s.asObservable();
  },
});

export const neverSource = defineSource({
  type: 'test_never',
  summary: 'test: emits nothing',
  schema: v.strictObject({ type: v.literal('test_never') }),
  build: () => NEVER,
});

/** A destination that cannot be opened: the sink errors as soon as it is subscribed. */
export const failingSink = defineSink({
  type: 'test_failing',
  summary: 'test: errors at start',
  schema: sinkObject('test_failing', {}),
  input: 'any',
  build: () => () => throwError(() => new Error('cannot open the destination')),
});

/** A source whose listener cannot bind: errors on the next tick, as a taken port does. */
export const failingSource = defineSource({
  type: 'test_failing',
  summary: 'test: errors at start',
  schema: v.strictObject({ type: v.literal('test_failing') }),
  build: () => new Observable<EventBatch>((s) => process.nextTick(() => s.error(new Error('listen EADDRINUSE: address already in use')))),
});

const all = [...components, collectSink, stuckSink, failingSink, feedSource, neverSource, failingSource] as unknown as ComponentDef[];
/** The real catalog plus the test components. */
export const testCatalog: Catalog = {
  find: (kind: ComponentKind, type: string) => all.find((c) => c.kind === kind && c.type === type),
  types: (kind: ComponentKind) => all.filter((c) => c.kind === kind).map((c) => c.type),
};
