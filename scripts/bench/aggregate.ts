/**
 * aggregate throughput: incremental counters of 1,000 series (two tags each) in mode Auto,
 * flushed at completion, against a bare-Node baseline in the same run that sums the same events
 * into a Map keyed by name and tags (the least any aggregation does per event).
 *
 *   npx tsx scripts/bench/aggregate.ts [events=1000000]
 */
import { asyncScheduler } from 'rxjs';
import { EventMetadata, type EventBatch, MetricEvent } from '../../lib/event.js';
import { aggregate } from '../../connectors/transforms/aggregate/aggregate.js';
import { batchedSource, eventCount, report, runBench } from './transform-harness.js';

const N = eventCount(1_000_000);
const SERIES = 1000;
const BATCH = 100;

const source = (n: number) =>
  batchedSource(n, BATCH, (i) => ({
    bytes: 96,
    event: new MetricEvent('requests_total', 'incremental', { type: 'counter', value: 1 }, new EventMetadata('in', 'demo'), 'app', { host: `h${i % SERIES}`, path: '/api' }),
  }));

const quiet = { recorded() {}, flushed() {}, updateFailed() {}, discarded() {} };
const op = () => aggregate({ intervalMs: 3_600_000, mode: 'Auto', scheduler: asyncScheduler, events: quiet });

/** The baseline: one Map lookup and an add per event, key from the name and the sorted tags. */
function baseline(next: () => EventBatch | undefined): { seconds: number; series: number } {
  const sums = new Map<string, number>();
  const t0 = process.hrtime.bigint();
  for (let b = next(); b !== undefined; b = next()) {
    for (const e of b) {
      const m = e as MetricEvent;
      const key = `${m.namespace}\u0000${m.name}\u0000host=${m.tags!.host}\u0000path=${m.tags!.path}`;
      sums.set(key, (sums.get(key) ?? 0) + (m.value as { value: number }).value);
    }
  }
  return { seconds: Number(process.hrtime.bigint() - t0) / 1e9, series: sums.size };
}

const warm = source(50_000);
runBench('warm-up', warm.next, warm.bytes, op());
baseline(source(50_000).next);
const src = source(N);
const r = runBench(`aggregate Auto (${SERIES} series, flushed at completion)`, src.next, src.bytes, op());
report(r);
const base = baseline(source(N).next);
console.log(`bare-Node Map baseline: ${Math.round(N / base.seconds).toLocaleString('en-US')} events/s (${base.series} series); aggregate/baseline time ratio ${(r.seconds / base.seconds).toFixed(2)}`);
