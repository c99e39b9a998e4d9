/**
 * The metric subscriptions (Vector's GraphQL subscriptions) as Observables on a scheduler, so their tick
 * semantics run in virtual time: every tick samples all metrics, the first one immediately.
 * Totals report a component the first time it is seen and then whenever its sum grew past the
 * last value reported; throughputs report every component's growth since the previous tick (per
 * interval, not per second) and skip the first tick, which only takes the baseline.
 */
import { type Observable, type SchedulerLike, map, mergeMap, skip, timer, from } from 'rxjs';
import type { MetricsRegistry } from '../telemetry/registry.js';
import { type ComponentSums, type MetricsSample, SENT_EVENTS, sampleMetrics } from './metrics.js';

/** `interval` arguments are milliseconds in 10..60000 (Vector validates the same range). */
export function checkInterval(ms: number): void {
  if (!Number.isInteger(ms) || ms < 10 || ms > 60_000) throw new Error(`interval must be between 10 and 60000 milliseconds, got ${ms}`);
}

/** A metrics sample every `intervalMs`, the first at subscription. */
export function samples$(registry: MetricsRegistry, intervalMs: number, scheduler: SchedulerLike): Observable<MetricsSample> {
  checkInterval(intervalMs);
  return timer(0, intervalMs, scheduler).pipe(map(() => sampleMetrics(registry, new Date(scheduler.now()))));
}

type Pick = (c: ComponentSums) => number | undefined;

/** Per tick: `[{ componentId, value, at }]` for the components seen for the first time or whose picked sum grew. */
export function componentTotals$(sample$: Observable<MetricsSample>, pick: Pick): Observable<{ componentId: string; value: number; at: Date }[]> {
  const last = new Map<string, number>();
  return sample$.pipe(
    map((s) => {
      const out: { componentId: string; value: number; at: Date }[] = [];
      for (const [id, c] of s.components) {
        const v = pick(c);
        if (v === undefined) continue;
        const prev = last.get(id);
        last.set(id, v);
        if (prev === undefined || v > prev) out.push({ componentId: id, value: v, at: s.at });
      }
      return out;
    }),
  );
}

/** Per tick after the first: `[{ componentId, throughput }]` for every component with the metric. */
export function componentThroughputs$(sample$: Observable<MetricsSample>, pick: Pick): Observable<{ componentId: string; throughput: number }[]> {
  const last = new Map<string, number>();
  return sample$.pipe(
    map((s) => {
      const out: { componentId: string; throughput: number }[] = [];
      for (const [id, c] of s.components) {
        const v = pick(c);
        if (v === undefined) continue;
        out.push({ componentId: id, throughput: Math.trunc(v - (last.get(id) ?? 0)) });
        last.set(id, v);
      }
      return out;
    }),
    skip(1),
  );
}

/** One row of componentSentEventsTotals before it becomes the schema's objects. */
export interface SentTotal {
  componentId: string;
  value: number;
  at: Date;
  outputs: { outputId: string; value: number }[];
}

/** componentSentEventsTotals: like totals, plus the per-output totals that are new or grew. */
export function sentTotalsWithOutputs$(sample$: Observable<MetricsSample>): Observable<SentTotal[]> {
  const last = new Map<string, number>();
  const grew = (key: string, v: number) => {
    const prev = last.get(key);
    last.set(key, v);
    return prev === undefined || v > prev;
  };
  return sample$.pipe(
    map((s) => {
      const out: SentTotal[] = [];
      for (const [id, c] of s.components) {
        const v = c.values.get(SENT_EVENTS);
        if (v === undefined) continue;
        const outputs: SentTotal['outputs'] = [];
        for (const [o, ov] of c.byOutput) if (grew(`${id}.${o}`, ov)) outputs.push({ outputId: o, value: ov });
        if (grew(id, v)) out.push({ componentId: id, value: v, at: s.at, outputs });
      }
      return out;
    }),
  );
}

/** One row of componentSentEventsThroughputs. */
export interface SentThroughput {
  componentId: string;
  throughput: number;
  outputs: { outputId: string; throughput: number }[];
}

/** componentSentEventsThroughputs: deltas per component and per output; the first tick is skipped. */
export function sentThroughputsWithOutputs$(sample$: Observable<MetricsSample>): Observable<SentThroughput[]> {
  const last = new Map<string, number>();
  const delta = (key: string, v: number) => {
    const d = v - (last.get(key) ?? 0);
    last.set(key, v);
    return Math.trunc(d);
  };
  return sample$.pipe(
    map((s) => {
      const out: SentThroughput[] = [];
      for (const [id, c] of s.components) {
        const v = c.values.get(SENT_EVENTS);
        if (v === undefined) continue;
        const outputs = [...c.byOutput].map(([o, ov]) => ({ outputId: o, throughput: delta(`${id}.${o}`, ov) }));
        out.push({ componentId: id, throughput: delta(id, v), outputs });
      }
      return out;
    }),
    skip(1),
  );
}

/** One item per matching series per tick (errorsTotal, allocatedBytes and the deprecated globals). */
export function perSeries$(registry: MetricsRegistry, intervalMs: number, scheduler: SchedulerLike, match: (name: string) => boolean): Observable<{ value: number; at: Date }> {
  checkInterval(intervalMs);
  return timer(0, intervalMs, scheduler).pipe(
    mergeMap(() => {
      const at = new Date(scheduler.now());
      return from(registry.all().filter((s) => match(s.name)).map((s) => ({ value: s.value, at })));
    }),
  );
}

/** The deprecated global throughputs: growth of the sum over every series of one metric, per tick after the first. */
export function globalThroughput$(registry: MetricsRegistry, intervalMs: number, scheduler: SchedulerLike, name: string): Observable<number> {
  checkInterval(intervalMs);
  let last = 0;
  return timer(0, intervalMs, scheduler).pipe(
    map(() => {
      const v = registry.sum(name);
      const d = v - last;
      last = v;
      return Math.trunc(d);
    }),
    skip(1),
  );
}
