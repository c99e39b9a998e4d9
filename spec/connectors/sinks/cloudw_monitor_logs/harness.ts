/** Shared helpers of the cloudw_monitor_logs sink specs. */
import { type Observable, lastValueFrom, toArray } from 'rxjs';
import * as v from 'valibot';
import { CloudwMonitorLogsConfig } from '../../../../connectors/sinks/cloudw_monitor_logs/config.js';
import { buildCloudwMonitorLogsSink } from '../../../../connectors/sinks/cloudw_monitor_logs/sink.js';
import { type Delivery, type EventBatch, type LogEvent, logEvent } from '../../../../lib/event.js';
import { Timestamp, type Value } from '../../../../lib/value.js';
import { type TestSinkContext, testSinkContext } from '../../../helpers/sink-context.js';

export const KEY = 'AKIDWEIRTEST';
export const SECRET = 'weir-test-secret';

/** Parses a config the way the loader does, pointed at a strict server with the test's key pair. */
export function logsConfig(endpoint: string, extra: Record<string, unknown> = {}): CloudwMonitorLogsConfig {
  return v.parse(CloudwMonitorLogsConfig, {
    type: 'cloudw_monitor_logs',
    inputs: ['in'],
    endpoint,
    region: 'us-east-1',
    auth: { access_key_id: KEY, secret_access_key: SECRET },
    group_name: 'app',
    stream_name: 'web',
    ...extra,
  });
}

/** Fast retry timings for tests; the schema takes whole seconds, the sink any number. */
export function fast(config: CloudwMonitorLogsConfig, over: Partial<CloudwMonitorLogsConfig['request']> = {}): CloudwMonitorLogsConfig {
  config.request = { ...config.request, retry_initial_backoff_secs: 0.01, retry_max_duration_secs: 0.05, timeout_secs: 5, ...over };
  return config;
}

/** A log event with `message`, a timestamp `ms` (epoch ms; none when null) and extra fields. */
export function log(message: string, ms: number | null, fields: Record<string, Value> = {}): LogEvent {
  return logEvent({ message, ...(ms === null ? {} : { timestamp: new Timestamp(ms) }), ...fields }, 'in', 'test');
}

export async function runSink(config: CloudwMonitorLogsConfig, input: Observable<EventBatch>, ctx: TestSinkContext = testSinkContext('cloudw_monitor_logs')): Promise<Delivery[]> {
  return lastValueFrom(input.pipe(buildCloudwMonitorLogsSink(config, ctx), toArray()));
}

export const count = (ds: readonly Delivery[], status: Delivery['status']) => ds.filter((d) => d.status === status).reduce((n, d) => n + d.events.length, 0);

/** The service's JSON error body. */
export const awsError = (type: string, status = 400) => ({ status, body: JSON.stringify({ __type: type, message: type }), headers: { 'content-type': 'application/x-amz-json-1.1' } });

/** The operation a recorded request named. */
export const operation = (headers: Record<string, unknown>) => String(headers['x-amz-target'] ?? '').replace('Logs_20140328.', '');
