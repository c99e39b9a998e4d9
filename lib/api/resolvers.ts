/**
 * Resolvers of the management API schema (lib/api/schema.ts). Objects carry
 * `__typename`, which graphql-js uses to pick the member of an interface or union.
 */
import { type Observable, type SchedulerLike, Subject, map, timer } from 'rxjs';
import type { ComponentKind } from '../component.js';
import type { LogEvent, MetricEvent } from '../event.js';
import { toAsyncIterator } from './async-queue.js';
import { type ApiTopology, type ComponentRecord, ComponentIndex, outputTypesOf, recordsOf } from './component-index.js';
import { type PageArgs, type StringFilter, type Direction, connection, enumMatches, filterMatches, setMatches, sortBy, stringMatches } from './connection.js';
import { type EventEncoding, encodeEvent, logField, logMessage, logTimestamp, metricTags, metricValueText, metricValueType } from './event-view.js';
import { ALLOCATED_BYTES, RECEIVED_BYTES, RECEIVED_EVENTS, SENT_BYTES, SENT_EVENTS, componentMetric } from './metrics.js';
import { type TapItem, checkTapArgs, tap$ } from './tap.js';
import { checkInterval, componentThroughputs$, componentTotals$, globalThroughput$, perSeries$, samples$, sentThroughputsWithOutputs$, sentTotalsWithOutputs$ } from './ticks.js';

/** What the resolvers read: the topology, time, and this process's identity. */
export interface ApiDeps {
  readonly topology: ApiTopology;
  readonly scheduler: SchedulerLike;
  /** Epoch ms when the process started serving (uptime). */
  readonly startedAt: number;
  readonly version: string;
  readonly hostname: string;
  /** Values a subscription may have waiting for a slow client before newer ones are dropped. */
  readonly queueCapacity?: number;
}

type Node = { __typename: 'Source' | 'Transform' | 'Sink'; componentId: string; componentType: string; rec: ComponentRecord };

const TYPENAME: Record<ComponentKind, Node['__typename']> = { source: 'Source', transform: 'Transform', sink: 'Sink' };
const KIND_ORDER: Record<ComponentKind, number> = { source: 0, transform: 1, sink: 2 };

const node = (rec: ComponentRecord): Node => ({ __typename: TYPENAME[rec.kind], componentId: rec.id, componentType: rec.type, rec });

interface Filter {
  componentId?: StringFilter[] | null;
  componentType?: StringFilter[] | null;
  componentKind?: { equals?: string | null; notEquals?: string | null }[] | null;
  outputType?: { equals?: string[] | null; notEquals?: string[] | null; contains?: string | null; notContains?: string | null }[] | null;
  or?: Filter[] | null;
}

/** Every given list entry must hold. */
function ownMatches(f: Filter, rec: ComponentRecord): boolean {
  return (
    (f.componentId ?? []).every((s) => stringMatches(s, rec.id)) &&
    (f.componentType ?? []).every((s) => stringMatches(s, rec.type)) &&
    (f.componentKind ?? []).every((k) => enumMatches(k, rec.kind.toUpperCase())) &&
    (f.outputType ?? []).every((t) => setMatches(t, outputTypesOf(rec)))
  );
}

type ListArgs = PageArgs & { filter?: Filter | null; sort?: { field: string; direction?: Direction | null }[] | null };

function list(recs: ComponentRecord[], args: ListArgs) {
  const kept = recs.filter((r) => filterMatches(args.filter, r, ownMatches));
  sortBy(kept, args.sort, (r, field) => {
    switch (field) {
      case 'COMPONENT_KIND':
        return KIND_ORDER[r.kind];
      case 'COMPONENT_TYPE':
        return r.type;
      case 'OUTPUT_TYPE':
        return outputTypesOf(r).join(',');
      default:
        return r.id;
    }
  });
  return connection(kept.map(node), args);
}

/** `{timestamp, <field>}` for one summed metric, or null when the component has none. */
function total(deps: ApiDeps, id: string, name: string, field: string, output?: string): Record<string, unknown> | null {
  const v = componentMetric(deps.topology.registry, id, name, output);
  return v === undefined ? null : { timestamp: new Date(deps.scheduler.now()).toISOString(), [field]: v };
}

/** The long-lived side of the API: component added/removed notices from topology changes. */
export class ComponentChanges {
  readonly added$ = new Subject<ComponentRecord>();
  readonly removed$ = new Subject<ComponentRecord>();
  private known = new Map<string, ComponentRecord>();
  private readonly sub;
  constructor(topology: ApiTopology) {
    this.known = recordsOf(topology.currentGraph);
    this.sub = topology.changes$.subscribe(() => {
      const now = recordsOf(topology.currentGraph);
      // ids compared, not configs, as Vector's componentAdded/componentRemoved do
      for (const [id, r] of this.known) if (!now.has(id)) this.removed$.next(r);
      for (const [id, r] of now) if (!this.known.has(id)) this.added$.next(r);
      this.known = now;
    });
  }
  close(): void {
    this.sub.unsubscribe();
  }
}

const dateText = (d: Date) => d.toISOString();

/** The resolver map mercurius takes; `changes` feeds componentAdded/componentRemoved. */
export function buildResolvers(deps: ApiDeps, changes: ComponentChanges) {
  const index = new ComponentIndex(deps.topology);
  const capacity = deps.queueCapacity ?? 10;
  const { registry } = deps.topology;
  const sub = <A>(make: (args: A) => Observable<unknown>, queue = capacity) => ({
    subscribe: (_root: unknown, args: A) => toAsyncIterator(make(args), queue),
    resolve: (payload: unknown) => payload,
  });
  const samples = (ms: number) => samples$(registry, ms, deps.scheduler);
  type I = { interval: number };
  const totals = (name: string, field: string) =>
    sub<I>(({ interval }) => componentTotals$(samples(interval), (c) => c.values.get(name)).pipe(map((l) => l.map((x) => ({ componentId: x.componentId, metric: { timestamp: dateText(x.at), [field]: x.value } })))));
  const throughputs = (name: string) => sub<I>(({ interval }) => componentThroughputs$(samples(interval), (c) => c.values.get(name)));
  // one value per series arrives in a burst each tick: the queue holds a tick of many series
  const single = (match: (n: string) => boolean, field: string) =>
    sub<I>(({ interval }) => perSeries$(registry, interval, deps.scheduler, match).pipe(map((x) => ({ timestamp: dateText(x.at), [field]: x.value }))), 10_000);

  const metricsObject = (rec: ComponentRecord) => ({ __typename: rec.kind === 'source' ? 'GenericSourceMetrics' : rec.kind === 'transform' ? 'GenericTransformMetrics' : 'GenericSinkMetrics', id: rec.id });
  const metricField = (name: string, field: string) => (m: { id: string }) => total(deps, m.id, name, field);
  const receivedBytesTotal = metricField(RECEIVED_BYTES, 'receivedBytesTotal');
  const receivedEventsTotal = metricField(RECEIVED_EVENTS, 'receivedEventsTotal');
  const sentEventsTotal = metricField(SENT_EVENTS, 'sentEventsTotal');
  const sentBytesTotal = metricField(SENT_BYTES, 'sentBytesTotal');
  const outputs = (n: Node) => n.rec.outputs.map((o) => ({ outputId: o.name ?? '_default', sentEventsTotal: total(deps, n.rec.id, SENT_EVENTS, 'sentEventsTotal', o.name ?? '_default') }));

  return {
    Query: {
      health: () => true,
      meta: () => ({ versionString: deps.version, hostname: deps.hostname }),
      components: (_: unknown, args: ListArgs) => list([...index.all.values()], args),
      sources: (_: unknown, args: ListArgs) => list(index.ofKind('source'), args),
      transforms: (_: unknown, args: ListArgs) => list(index.ofKind('transform'), args),
      sinks: (_: unknown, args: ListArgs) => list(index.ofKind('sink'), args),
      componentByComponentKey: (_: unknown, { componentId }: { componentId: string }) => {
        const r = index.get(componentId);
        return r ? node(r) : null;
      },
    },
    Source: {
      outputTypes: (n: Node) => outputTypesOf(n.rec),
      outputs,
      transforms: (n: Node) => index.consumersOfKind(n.rec, 'transform').map(node),
      sinks: (n: Node) => index.consumersOfKind(n.rec, 'sink').map(node),
      metrics: (n: Node) => metricsObject(n.rec),
    },
    Transform: {
      outputs,
      sources: (n: Node) => index.inputsOfKind(n.rec, 'source').map(node),
      transforms: (n: Node) => index.consumersOfKind(n.rec, 'transform').map(node),
      sinks: (n: Node) => index.consumersOfKind(n.rec, 'sink').map(node),
      metrics: (n: Node) => metricsObject(n.rec),
    },
    Sink: {
      sources: (n: Node) => index.inputsOfKind(n.rec, 'source').map(node),
      transforms: (n: Node) => index.inputsOfKind(n.rec, 'transform').map(node),
      metrics: (n: Node) => metricsObject(n.rec),
    },
    GenericSourceMetrics: { receivedBytesTotal, receivedEventsTotal, sentEventsTotal },
    GenericTransformMetrics: { receivedEventsTotal, sentEventsTotal },
    GenericSinkMetrics: { receivedEventsTotal, sentBytesTotal, sentEventsTotal },
    Log: {
      message: (p: { event: LogEvent }) => logMessage(p.event),
      timestamp: (p: { event: LogEvent }) => logTimestamp(p.event),
      string: (p: { event: LogEvent }, { encoding }: { encoding: EventEncoding }) => encodeEvent(p.event, encoding),
      json: (p: { event: LogEvent }, { field }: { field: string }) => logField(p.event, field),
    },
    Metric: {
      timestamp: (p: { event: MetricEvent }) => p.event.timestamp?.toString() ?? null,
      name: (p: { event: MetricEvent }) => p.event.name,
      namespace: (p: { event: MetricEvent }) => p.event.namespace ?? null,
      kind: (p: { event: MetricEvent }) => p.event.kind.toUpperCase(),
      valueType: (p: { event: MetricEvent }) => metricValueType(p.event.value),
      value: (p: { event: MetricEvent }) => metricValueText(p.event.value),
      tags: (p: { event: MetricEvent }) => metricTags(p.event),
      string: (p: { event: MetricEvent }, { encoding }: { encoding: EventEncoding }) => encodeEvent(p.event, encoding),
    },
    Subscription: {
      heartbeat: sub<I>(({ interval }) => {
        checkInterval(interval);
        return timer(0, interval, deps.scheduler).pipe(map(() => ({ utc: dateText(new Date(deps.scheduler.now())) })));
      }),
      uptime: sub<I>(({ interval }) => uptime$(deps, interval)),
      metrics: sub<I>(({ interval }) => uptime$(deps, interval).pipe(map((u) => ({ __typename: 'Uptime', ...u })))),
      componentReceivedEventsTotals: totals(RECEIVED_EVENTS, 'receivedEventsTotal'),
      componentReceivedEventsThroughputs: throughputs(RECEIVED_EVENTS),
      componentSentEventsTotals: sub<I>(({ interval }) =>
        sentTotalsWithOutputs$(samples(interval)).pipe(
          map((l) =>
            l.map((x) => ({
              componentId: x.componentId,
              metric: { timestamp: dateText(x.at), sentEventsTotal: x.value },
              outputs: x.outputs.map((o) => ({ outputId: o.outputId, sentEventsTotal: { timestamp: dateText(x.at), sentEventsTotal: o.value } })),
            })),
          ),
        ),
      ),
      componentSentEventsThroughputs: sub<I>(({ interval }) => sentThroughputsWithOutputs$(samples(interval))),
      componentReceivedBytesTotals: totals(RECEIVED_BYTES, 'receivedBytesTotal'),
      componentReceivedBytesThroughputs: throughputs(RECEIVED_BYTES),
      componentSentBytesTotals: totals(SENT_BYTES, 'sentBytesTotal'),
      componentSentBytesThroughputs: throughputs(SENT_BYTES),
      componentErrorsTotals: sub<I>(({ interval }) =>
        componentTotals$(samples(interval), (c) => c.errors).pipe(map((l) => l.map((x) => ({ componentId: x.componentId, metric: { timestamp: dateText(x.at), errorsTotal: x.value } })))),
      ),
      componentAllocatedBytes: totals(ALLOCATED_BYTES, 'allocatedBytes'),
      errorsTotal: single((n) => n.endsWith('_errors_total'), 'errorsTotal'),
      allocatedBytes: single((n) => n === ALLOCATED_BYTES, 'allocatedBytes'),
      receivedEventsTotal: single((n) => n === RECEIVED_EVENTS, 'receivedEventsTotal'),
      sentEventsTotal: single((n) => n === SENT_EVENTS, 'sentEventsTotal'),
      receivedEventsThroughput: sub<I>(({ interval }) => globalThroughput$(registry, interval, deps.scheduler, RECEIVED_EVENTS)),
      sentEventsThroughput: sub<I>(({ interval }) => globalThroughput$(registry, interval, deps.scheduler, SENT_EVENTS)),
      componentAdded: sub<unknown>(() => changes.added$.pipe(map(node))),
      componentRemoved: sub<unknown>(() => changes.removed$.pipe(map(node))),
      outputEventsByComponentIdPatterns: sub<{ outputsPatterns: string[]; inputsPatterns?: string[] | null; interval: number; limit: number }>((a) => {
        checkTapArgs(a.limit, a.interval);
        return tap$(deps.topology, { outputsPatterns: a.outputsPatterns, inputsPatterns: a.inputsPatterns ?? [], intervalMs: a.interval, limit: a.limit, scheduler: deps.scheduler }).pipe(map((items) => items.map(payload)));
      }),
    },
  };
}

function uptime$(deps: ApiDeps, interval: number) {
  checkInterval(interval);
  return timer(0, interval, deps.scheduler).pipe(
    map(() => {
      const now = deps.scheduler.now();
      return { timestamp: dateText(new Date(now)), seconds: (now - deps.startedAt) / 1000 };
    }),
  );
}

/** A tap item as the `OutputEventsPayload` union member it is. */
function payload(item: TapItem): Record<string, unknown> {
  if (item.kind === 'notification') return { __typename: 'EventNotification', notification: { __typename: item.notification.type, ...item.notification }, message: item.message };
  return { __typename: item.event.type === 'log' ? 'Log' : 'Metric', componentId: item.componentId, componentType: item.componentType, componentKind: item.componentKind, event: item.event };
}

