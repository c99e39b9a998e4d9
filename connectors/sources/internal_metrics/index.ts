/** `internal_metrics`: the process's own metrics as metric events, at start and every scrape interval. */
import * as v from 'valibot';
import { of } from 'rxjs';
import { defineSource } from '../../../lib/component.js';
import { type EventBatch, EventMetadata, MetricEvent, batchSize, rememberBatchSize } from '../../../lib/event.js';
import { Timestamp } from '../../../lib/value.js';
import { HISTOGRAM_BOUNDS, type MetricsRegistry } from '../../../lib/telemetry/registry.js';
import { pullEvery, runSource } from '../../shared/source/index.js';

export const InternalMetricsConfig = v.strictObject({
  type: v.literal('internal_metrics'),
  scrape_interval_secs: v.optional(v.pipe(v.number(), v.gtValue(0, 'must be greater than 0')), 1),
  namespace: v.optional(v.string(), 'weir'),
  tags: v.optional(v.strictObject({ host_key: v.optional(v.string()), pid_key: v.optional(v.string()) }), {}),
});
export type InternalMetricsConfig = v.InferOutput<typeof InternalMetricsConfig>;

/** One metric event per series of the registry. */
export function snapshotMetrics(registry: MetricsRegistry, sourceId: string, config: InternalMetricsConfig, now: Timestamp): EventBatch {
  const out: EventBatch = [];
  for (const s of registry.all()) {
    const tags: Record<string, string> = {};
    for (const k in s.tags) {
      if (k === 'host') {
        if (config.tags.host_key) tags[config.tags.host_key] = s.tags[k]!;
      } else if (k === 'pid') {
        if (config.tags.pid_key) tags[config.tags.pid_key] = s.tags[k]!;
      } else tags[k] = s.tags[k]!;
    }
    const meta = new EventMetadata(sourceId, 'internal_metrics');
    if (s.type === 'histogram') {
      // per-bucket counts, as Vector's model holds an aggregated histogram (its Prometheus sinks make them cumulative)
      const buckets = s.buckets!.map((count, i) => ({ upper_limit: HISTOGRAM_BOUNDS[i]!, count }));
      out.push(new MetricEvent(s.name, 'absolute', { type: 'aggregated_histogram', buckets, count: s.value, sum: s.sum }, meta, config.namespace, tags, now));
    } else {
      out.push(new MetricEvent(s.name, 'absolute', s.type === 'counter' ? { type: 'counter', value: s.value } : { type: 'gauge', value: s.value }, meta, config.namespace, tags, now));
    }
  }
  return out;
}

export const internalMetricsSource = defineSource({
  type: 'internal_metrics',
  summary: "Expose weir's own metrics as metric events.",
  schema: InternalMetricsConfig,
  outputs: () => [{ type: 'metric' }],
  build: (config, ctx) =>
    runSource(ctx, {}, (out) => {
      // the first scrape at once, as Vector's interval timer fires on start; then every period
      const scrape = () => {
        const batch = snapshotMetrics(ctx.registry, ctx.id, config, new Timestamp(Math.floor(ctx.scheduler.now())));
        // no wire here: the snapshot's size is what this source takes in
        const bytes = batchSize(batch);
        rememberBatchSize(batch, bytes);
        out.received(bytes);
        return of(batch);
      };
      const sub = pullEvery(config.scrape_interval_secs * 1000, scrape, ctx.out, ctx.scheduler).subscribe((batch) => out.emit(batch));
      return { close: () => sub.unsubscribe() };
    }),
});
