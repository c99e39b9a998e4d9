/** Shared helpers of the cloudw_monitor_metrics sink specs. */
import { type Observable, lastValueFrom, toArray } from 'rxjs';
import * as v from 'valibot';
import { CloudwMonitorMetricsConfig } from '../../../../connectors/sinks/cloudw_monitor_metrics/config.js';
import { buildCloudwMonitorMetricsSink } from '../../../../connectors/sinks/cloudw_monitor_metrics/sink.js';
import { type Delivery, type EventBatch, EventMetadata, MetricEvent, type MetricKind, type MetricValue, type Tags } from '../../../../lib/event.js';
import { Timestamp } from '../../../../lib/value.js';
import { type TestSinkContext, testSinkContext } from '../../../helpers/sink-context.js';

export const KEY = 'AKIDWEIRTEST';
export const SECRET = 'weir-test-secret';

/** Parses a config the way the loader does, pointed at a strict server with the test's key pair. */
export function metricsConfig(endpoint: string, extra: Record<string, unknown> = {}): CloudwMonitorMetricsConfig {
  return v.parse(CloudwMonitorMetricsConfig, {
    type: 'cloudw_monitor_metrics',
    inputs: ['in'],
    endpoint,
    region: 'us-east-1',
    auth: { access_key_id: KEY, secret_access_key: SECRET },
    default_namespace: 'weir',
    ...extra,
  });
}

/** Fast retry timings for tests; the schema takes whole seconds, the sink any number. */
export function fast(config: CloudwMonitorMetricsConfig, over: Partial<CloudwMonitorMetricsConfig['request']> = {}): CloudwMonitorMetricsConfig {
  config.request = { ...config.request, retry_initial_backoff_secs: 0.01, retry_max_duration_secs: 0.05, timeout_secs: 5, rate_limit_num: 9.2e18, ...over };
  return config;
}

/** A metric event; incremental by default, at `ms` (none when null). */
export function metric(name: string, value: MetricValue, opts: { kind?: MetricKind; namespace?: string; tags?: Tags; ms?: number | null } = {}): MetricEvent {
  const ts = opts.ms === null || opts.ms === undefined ? undefined : new Timestamp(opts.ms);
  return new MetricEvent(name, opts.kind ?? 'incremental', value, new EventMetadata('in', 'test'), opts.namespace, opts.tags, ts);
}
export const counter = (name: string, value: number, opts: Parameters<typeof metric>[2] = {}) => metric(name, { type: 'counter', value }, opts);
export const gauge = (name: string, value: number, opts: Parameters<typeof metric>[2] = {}) => metric(name, { type: 'gauge', value }, opts);

export async function runSink(config: CloudwMonitorMetricsConfig, input: Observable<EventBatch>, ctx: TestSinkContext = testSinkContext('cloudw_monitor_metrics')): Promise<Delivery[]> {
  return lastValueFrom(input.pipe(buildCloudwMonitorMetricsSink(config, ctx), toArray()));
}

export const count = (ds: readonly Delivery[], status: Delivery['status']) => ds.filter((d) => d.status === status).reduce((n, d) => n + d.events.length, 0);

/** The service's query-compatible JSON error. */
export const cwError = (type: string, code: string, status = 400) => ({
  status,
  body: JSON.stringify({ __type: `com.amazonaws.cloudwatch#${type}`, message: type }),
  headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-query-error': `${code};Sender` },
});
