/** Shared helpers of the siem_hec_metrics sink specs. */
import { type Observable, lastValueFrom, toArray } from 'rxjs';
import * as v from 'valibot';
import { SiemHecMetricsConfig } from '../../../../connectors/sinks/siem_hec_metrics/config.js';
import { buildSiemHecMetricsSink } from '../../../../connectors/sinks/siem_hec_metrics/sink.js';
import type { Delivery, EventBatch } from '../../../../lib/event.js';
import { type TestSinkContext, testSinkContext } from '../../../helpers/sink-context.js';

/** The token the HEC peer knows by default (indexer acknowledgements on). */
export const TOKEN = 'weir-token';

/** Parses a config the way the loader does (type, inputs and the default token added). */
export function siemConfig(endpoint: string, extra: Record<string, unknown> = {}): SiemHecMetricsConfig {
  return v.parse(SiemHecMetricsConfig, { type: 'siem_hec_metrics', inputs: ['in'], endpoint, default_token: TOKEN, ...extra });
}

/**
 * Fast timings for tests on a real clock; the schema takes whole seconds, the sink any number.
 * Acknowledgements are queried every 20 ms unless `acks` says otherwise.
 */
export function fast(config: SiemHecMetricsConfig, request: Partial<SiemHecMetricsConfig['request']> = {}, acks: Partial<SiemHecMetricsConfig['acknowledgements']> = {}): SiemHecMetricsConfig {
  config.request = { ...config.request, retry_initial_backoff_secs: 0.01, retry_max_duration_secs: 0.05, timeout_secs: 5, ...request };
  config.acknowledgements = { ...config.acknowledgements, query_interval: 0.02, ...acks };
  return config;
}

/** Runs the sink over the given batches and collects its Deliveries. */
export async function runSink(config: SiemHecMetricsConfig, input: Observable<EventBatch>, ctx: TestSinkContext = testSinkContext('siem_hec_metrics')): Promise<Delivery[]> {
  return lastValueFrom(input.pipe(buildSiemHecMetricsSink(config, ctx), toArray()));
}
