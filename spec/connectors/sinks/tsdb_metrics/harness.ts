/** Shared helpers of the tsdb_metrics sink specs. */
import { type Observable, lastValueFrom, toArray } from 'rxjs';
import * as v from 'valibot';
import { TsdbMetricsConfig } from '../../../../connectors/sinks/tsdb_metrics/config.js';
import { buildTsdbMetricsSink } from '../../../../connectors/sinks/tsdb_metrics/sink.js';
import { type Delivery, type EventBatch, EventMetadata, MetricEvent, type MetricKind, type MetricValue, type Tags } from '../../../../lib/event.js';
import { Timestamp } from '../../../../lib/value.js';
import { type TestSinkContext, testSinkContext } from '../../../helpers/sink-context.js';

/** Parses a config the way the loader does (type and inputs added). */
export function tsdbConfig(endpoint: string, extra: Record<string, unknown> = {}): TsdbMetricsConfig {
  return v.parse(TsdbMetricsConfig, { type: 'tsdb_metrics', inputs: ['in'], endpoint, ...extra });
}

/** Fast timings for tests; the schema takes whole seconds, the sink any number. */
export function fast(config: TsdbMetricsConfig, over: Partial<TsdbMetricsConfig['request']> = {}): TsdbMetricsConfig {
  config.request = { ...config.request, retry_initial_backoff_secs: 0.01, retry_max_duration_secs: 0.05, timeout_secs: 5, ...over };
  return config;
}

/** 2023-11-14T22:13:20Z plus 11 ns. */
export const T0 = new Timestamp(1_700_000_000_000, 11);
export const T0_NS = '1700000000000000011';

/** A metric event; incremental by default, at {@link T0}. */
export function metric(name: string, value: MetricValue, opts: { kind?: MetricKind; namespace?: string; tags?: Tags; timestamp?: Timestamp | null } = {}): MetricEvent {
  const ts = opts.timestamp === null ? undefined : (opts.timestamp ?? T0);
  return new MetricEvent(name, opts.kind ?? 'incremental', value, new EventMetadata('in', 'test'), opts.namespace, opts.tags, ts);
}

export const counter = (name: string, value: number, opts: Parameters<typeof metric>[2] = {}) => metric(name, { type: 'counter', value }, opts);
export const gauge = (name: string, value: number, opts: Parameters<typeof metric>[2] = {}) => metric(name, { type: 'gauge', value }, opts);

/** Runs the sink over the given batches and collects its Deliveries. */
export async function runSink(config: TsdbMetricsConfig, input: Observable<EventBatch>, ctx: TestSinkContext = testSinkContext('tsdb_metrics')): Promise<Delivery[]> {
  return lastValueFrom(input.pipe(buildTsdbMetricsSink(config, ctx), toArray()));
}

export const count = (ds: readonly Delivery[], status: Delivery['status']) => ds.filter((d) => d.status === status).reduce((n, d) => n + d.events.length, 0);

/** A database name no other test uses. */
let dbSeq = 0;
export const uniqueName = (prefix: string) => `${prefix}_${process.pid}_${Date.now().toString(36)}_${dbSeq++}`;
