/** Shared helpers of the cloudw_queue sink specs. */
import { type Observable, lastValueFrom, toArray } from 'rxjs';
import * as v from 'valibot';
import { CloudwQueueSinkConfig } from '../../../../connectors/sinks/cloudw_queue/config.js';
import { buildCloudwQueueSink } from '../../../../connectors/sinks/cloudw_queue/sink.js';
import { type Delivery, type EventBatch, type LogEvent, logEvent } from '../../../../lib/event.js';
import type { Value } from '../../../../lib/value.js';
import { type TestSinkContext, testSinkContext } from '../../../helpers/sink-context.js';
import { TEST_KEYS } from '../../../peers/fauxqs.js';

/** Parses a config the way the loader does, pointed at `endpoint` with the test keys. */
export function queueConfig(endpoint: string, queueUrl: string, extra: Record<string, unknown> = {}): CloudwQueueSinkConfig {
  return v.parse(CloudwQueueSinkConfig, { type: 'cloudw_queue', inputs: ['in'], queue_url: queueUrl, endpoint, region: 'us-east-1', auth: { ...TEST_KEYS }, ...extra });
}

/** Fast timings for tests (the schema takes whole seconds, the sink any number); no rate limit unless given. */
export function fast(config: CloudwQueueSinkConfig, over: Partial<CloudwQueueSinkConfig['request']> = {}): CloudwQueueSinkConfig {
  config.request = { ...config.request, rate_limit_num: 1e9, retry_initial_backoff_secs: 0.01, retry_max_duration_secs: 0.05, timeout_secs: 5, ...over };
  return config;
}

/** A log event with `message` and extra fields. */
export const log = (message: string, fields: Record<string, Value> = {}): LogEvent => logEvent({ message, ...fields });

/** Runs the sink over the given batches and collects its Deliveries. */
export async function runSink(config: CloudwQueueSinkConfig, input: Observable<EventBatch>, ctx: TestSinkContext = testSinkContext('cloudw_queue')): Promise<Delivery[]> {
  return lastValueFrom(input.pipe(buildCloudwQueueSink(config, ctx), toArray()));
}

/** Events per status over all deliveries. */
export const count = (ds: readonly Delivery[], status: Delivery['status']) => ds.filter((d) => d.status === status).reduce((n, d) => n + d.events.length, 0);
