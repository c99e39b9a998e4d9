/** Shared helpers of the logsvc_metrics sink specs. */
import { type Observable, lastValueFrom, toArray } from 'rxjs';
import * as v from 'valibot';
import { LogsvcMetricsConfig } from '../../../../connectors/sinks/logsvc_metrics/config.js';
import { buildLogsvcMetricsSink } from '../../../../connectors/sinks/logsvc_metrics/sink.js';
import type { Delivery, EventBatch } from '../../../../lib/event.js';
import { type TestSinkContext, testSinkContext } from '../../../helpers/sink-context.js';

/** The token the Humio peer knows by default (repository `weir`). */
export const TOKEN = 'weir-ingest-token';

/** Parses a config the way the loader does (type, inputs and the default token added). */
export function logsvcConfig(endpoint: string, extra: Record<string, unknown> = {}): LogsvcMetricsConfig {
  return v.parse(LogsvcMetricsConfig, { type: 'logsvc_metrics', inputs: ['in'], endpoint, token: TOKEN, ...extra });
}

/** Fast timings for tests; the schema takes whole seconds, the sink any number. */
export function fast(config: LogsvcMetricsConfig, over: Partial<LogsvcMetricsConfig['request']> = {}): LogsvcMetricsConfig {
  config.request = { ...config.request, retry_initial_backoff_secs: 0.01, retry_max_duration_secs: 0.05, timeout_secs: 5, ...over };
  return config;
}

/** Runs the sink over the given batches and collects its Deliveries. */
export async function runSink(config: LogsvcMetricsConfig, input: Observable<EventBatch>, ctx: TestSinkContext = testSinkContext('logsvc_metrics')): Promise<Delivery[]> {
  return lastValueFrom(input.pipe(buildLogsvcMetricsSink(config, ctx), toArray()));
}
