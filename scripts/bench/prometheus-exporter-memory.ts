/**
 * Memory of the `prometheus_exporter` sink holding N series (default 100,000): each a gauge with
 * three tags (`host`, `path`, `code`), fed through the sink in batches of 1,000, then one scrape
 * rendered. Prints the heap growth per series of the sink and of a bare-Node baseline holding the
 * same data (a Map of plain objects keyed by the same text), their ratio from this one run, the
 * process's peak RSS, and how long one warm scrape of all series takes (gzip, as Prometheus asks).
 * `node --expose-gc --import tsx scripts/bench/prometheus-exporter-memory.ts [series]`
 */
import { Subject } from 'rxjs';
import * as v from 'valibot';
import { type EventBatch, EventMetadata, MetricEvent } from '../../lib/event.js';
import { componentContext, sinkContext } from '../../lib/component-context.js';
import { MetricsRegistry } from '../../lib/telemetry/registry.js';
import { PrometheusExporterConfig } from '../../connectors/sinks/prometheus_exporter/config.js';
import { type ExporterHandle, buildPrometheusExporterSink } from '../../connectors/sinks/prometheus_exporter/sink.js';

const n = Number(process.argv[2] ?? 100_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const tagsOf = (i: number) => ({ host: `host-${i % 100}`, path: `/api/v1/resource/${i}`, code: String(200 + (i % 5)) });

async function exporterBytes(): Promise<{ perSeries: number; scrapeMs: number; plainMs: number; pageBytes: number }> {
  const before = heap();
  const config = v.parse(PrometheusExporterConfig, { type: 'prometheus_exporter', inputs: ['in'], address: '127.0.0.1:0', flush_period_secs: 0 });
  const ctx = sinkContext(componentContext({ id: 'prom', kind: 'sink', type: 'prometheus_exporter', registry: new MetricsRegistry({}) }), { acknowledgements: false });
  let handle: ExporterHandle | undefined;
  const input = new Subject<EventBatch>();
  const sub = input.pipe(buildPrometheusExporterSink(config, ctx, (h) => (handle = h))).subscribe();
  const port = await handle!.listening;
  for (let i = 0; i < n; i += 1000) {
    const batch: EventBatch = [];
    for (let j = i; j < Math.min(n, i + 1000); j++) batch.push(new MetricEvent('requests_in_flight', 'absolute', { type: 'gauge', value: j }, new EventMetadata('in', 'bench'), 'app', tagsOf(j)));
    input.next(batch);
  }
  const perSeries = (heap() - before) / n;
  // the first scrape runs cold (JIT); the figure is the second, gzip-compressed as Prometheus asks
  await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text());
  const t0 = performance.now();
  const page = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text());
  const scrapeMs = performance.now() - t0;
  const t1 = performance.now();
  await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { 'accept-encoding': 'identity' } }).then((r) => r.text());
  const plainMs = performance.now() - t1;
  if (handle!.store.size !== n) throw new Error(`store holds ${handle!.store.size} series, expected ${n}`);
  sub.unsubscribe();
  return { perSeries, scrapeMs, plainMs, pageBytes: Buffer.byteLength(page) };
}

function baselineBytes(): number {
  const before = heap();
  const map = new Map<string, { name: string; namespace: string; tags: Record<string, string>; value: number; updatedAt: number }>();
  for (let i = 0; i < n; i++) {
    const tags = tagsOf(i);
    map.set(`app\u0000requests_in_flight\u0000code=${tags.code}\u0000host=${tags.host}\u0000path=${tags.path}`, { name: 'requests_in_flight', namespace: 'app', tags, value: i, updatedAt: 0 });
  }
  const perSeries = (heap() - before) / n;
  if (map.size !== n) throw new Error('baseline lost entries');
  return perSeries;
}

const base = baselineBytes();
const exp = await exporterBytes();
const rssMiB = process.resourceUsage().maxRSS / 1024;
console.log(`series: ${n}`);
console.log(`baseline (Map of plain objects): ${base.toFixed(0)} B/series`);
console.log(`prometheus_exporter: ${exp.perSeries.toFixed(0)} B/series (${((exp.perSeries * n) / 2 ** 20).toFixed(1)} MiB), ratio ${(exp.perSeries / base).toFixed(2)}`);
console.log(`peak RSS: ${rssMiB.toFixed(0)} MiB; one (warm) scrape: ${exp.scrapeMs.toFixed(0)} ms gzip, ${exp.plainMs.toFixed(0)} ms plain, ${(exp.pageBytes / 2 ** 20).toFixed(1)} MiB of text`);
process.exit(0);
