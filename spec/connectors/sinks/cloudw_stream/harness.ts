/** Shared helpers of the cloudw_stream sink specs. */
import { type Observable, lastValueFrom, toArray } from 'rxjs';
import * as v from 'valibot';
import { CloudwStreamSinkConfig } from '../../../../connectors/sinks/cloudw_stream/config.js';
import { buildCloudwStreamSink } from '../../../../connectors/sinks/cloudw_stream/sink.js';
import { type Delivery, type EventBatch, type LogEvent, logEvent } from '../../../../lib/event.js';
import type { Value } from '../../../../lib/value.js';
import { type TestSinkContext, testSinkContext } from '../../../helpers/sink-context.js';

/** The key pair the strict front accepts. */
export const TEST_KEYS = { access_key_id: 'AKIASTREAMTEST', secret_access_key: 'stream-test-secret' };
export const FRONT_KEYS = [{ accessKeyId: TEST_KEYS.access_key_id, secretAccessKey: TEST_KEYS.secret_access_key }];

/** Parses a config the way the loader does, pointed at `endpoint` with the test keys. */
export function streamConfig(endpoint: string, stream: string, extra: Record<string, unknown> = {}): CloudwStreamSinkConfig {
  return v.parse(CloudwStreamSinkConfig, { type: 'cloudw_stream', inputs: ['in'], stream_name: stream, endpoint, encoding: { codec: 'json' }, auth: { ...TEST_KEYS }, ...extra });
}

/** Fast timings for tests (the schema takes whole seconds, the sink any number). */
export function fast(config: CloudwStreamSinkConfig, over: Partial<CloudwStreamSinkConfig['request']> = {}): CloudwStreamSinkConfig {
  config.request = { ...config.request, retry_initial_backoff_secs: 0.01, retry_max_duration_secs: 0.05, timeout_secs: 5, ...over };
  config.batch = { ...config.batch, timeout_secs: 0.05 };
  return config;
}

/** A log event with `message` and extra fields. */
export const log = (message: string, fields: Record<string, Value> = {}): LogEvent => logEvent({ message, ...fields });

/** Runs the sink over the given batches and collects its Deliveries. */
export async function runSink(config: CloudwStreamSinkConfig, input: Observable<EventBatch>, ctx: TestSinkContext = testSinkContext('cloudw_stream')): Promise<Delivery[]> {
  return lastValueFrom(input.pipe(buildCloudwStreamSink(config, ctx), toArray()));
}

/** Events per status over all deliveries. */
export const count = (ds: readonly Delivery[], status: Delivery['status']) => ds.filter((d) => d.status === status).reduce((n, d) => n + d.events.length, 0);
