/** Shared helpers of the cloudg_pubsub sink specs. */
import { type Observable, lastValueFrom, toArray } from 'rxjs';
import * as v from 'valibot';
import { CloudgPubsubConfig } from '../../../../connectors/sinks/cloudg_pubsub/config.js';
import { buildCloudgPubsubSink } from '../../../../connectors/sinks/cloudg_pubsub/sink.js';
import type { Delivery, EventBatch } from '../../../../lib/event.js';
import { type TestSinkContext, testSinkContext } from '../../../helpers/sink-context.js';

/** Parses a config the way the loader does. */
export function pubsubConfig(endpoint: string, topic: string, extra: Record<string, unknown> = {}): CloudgPubsubConfig {
  return v.parse(CloudgPubsubConfig, { type: 'cloudg_pubsub', inputs: ['in'], project: 'weir-test', topic, endpoint, encoding: { codec: 'json' }, api_key: 'test-key', ...extra });
}

/** Fast retries for tests; the schema takes whole seconds, the sink any number. */
export function fast(config: CloudgPubsubConfig, over: Partial<CloudgPubsubConfig['request']> = {}): CloudgPubsubConfig {
  config.request = { ...config.request, retry_initial_backoff_secs: 0.01, retry_max_duration_secs: 0.05, timeout_secs: 10, ...over };
  return config;
}

/** Runs the sink over the given batches and collects its Deliveries. */
export async function runSink(config: CloudgPubsubConfig, input: Observable<EventBatch>, ctx: TestSinkContext = testSinkContext('cloudg_pubsub'), env: NodeJS.ProcessEnv = {}): Promise<Delivery[]> {
  return lastValueFrom(input.pipe(buildCloudgPubsubSink(config, ctx, env), toArray()));
}

/** Events delivered, summed over deliveries of that status. */
export const count = (ds: readonly Delivery[], status: Delivery['status']) => ds.filter((d) => d.status === status).reduce((n, d) => n + d.events.length, 0);
