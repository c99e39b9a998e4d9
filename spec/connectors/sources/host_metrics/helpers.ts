/** Running the `host_metrics` source in a test: scrapes in virtual time, metrics by name and tags. */
import { VirtualTimeScheduler } from 'rxjs';
import * as v from 'valibot';
import type { EventBatch, MetricEvent } from '../../../../lib/event.js';
import { HostMetricsConfig, buildHostMetricsSource } from '../../../../connectors/sources/host_metrics/index.js';
import type { Roots } from '../../../../connectors/sources/host_metrics/scrape.js';
import { type TestSourceContext, testSourceContext } from '../source-context.js';

/** Options with the type filled in, parsed by the schema. */
export const parse = (o: Record<string, unknown>) => v.parse(HostMetricsConfig, { type: 'host_metrics', ...o });

/** What {@link scrapes} returns. */
export interface Scrapes {
  readonly batches: MetricEvent[][];
  /** Virtual time of each scrape's emission. */
  readonly times: number[];
  readonly ctx: TestSourceContext;
}

/**
 * Runs the source for `n` scrapes. Time is virtual: after each scrape the scheduler jumps to the
 * next timer, so the gap between scrapes is what the source asked for; `between` runs before each
 * later scrape (to change fake files).
 */
export function scrapes(options: Record<string, unknown>, n: number, roots?: Roots, between?: (i: number) => void): Promise<Scrapes> {
  const vt = new VirtualTimeScheduler();
  const ctx = testSourceContext('host_metrics', 'in', vt);
  const batches: MetricEvent[][] = [];
  const times: number[] = [];
  return new Promise((resolve, reject) => {
    let done = false;
    const sub = buildHostMetricsSource(parse(options), ctx, roots).subscribe({
      next(b) {
        batches.push(b as EventBatch as MetricEvent[]);
        times.push(vt.now());
        if (batches.length === n) {
          done = true;
          setImmediate(() => sub.unsubscribe());
          resolve({ batches, times, ctx });
          return;
        }
        // the next scrape's timer is scheduled once this read completed
        setImmediate(() => {
          between?.(batches.length);
          if (!done) vt.flush();
        });
      },
      error: reject,
    });
  });
}

/** The one metric with this name and these tags (among others); throws when there is not exactly one. */
export function one(batch: readonly MetricEvent[], name: string, tags: Record<string, string> = {}): MetricEvent {
  const found = all(batch, name, tags);
  if (found.length !== 1) throw new Error(`${found.length} metrics ${name} ${JSON.stringify(tags)}`);
  return found[0]!;
}

/** Metrics with this name and these tags (among others). */
export function all(batch: readonly MetricEvent[], name: string, tags: Record<string, string> = {}): MetricEvent[] {
  return batch.filter((m) => m.name === name && Object.entries(tags).every(([k, t]) => m.tags?.[k] === t));
}

/** The number of a counter or gauge. */
export const value = (m: MetricEvent): number => (m.value.type === 'counter' || m.value.type === 'gauge' ? m.value.value : NaN);
