/** The `cloudg_pubsub` sink definition, for the catalog. */
import { defineSink } from '../../../lib/component.js';
import { CloudgPubsubConfig } from './config.js';
import { buildCloudgPubsubSink, cloudgPubsubHealthcheck } from './sink.js';

export { CloudgPubsubConfig } from './config.js';
export { buildCloudgPubsubSink, cloudgPubsubHealthcheck } from './sink.js';

/** Publishes events to a topic of the cloud publish/subscribe service. */
export const cloudgPubsubSink = defineSink({
  type: 'cloudg_pubsub',
  aliases: ['gcp_pubsub'],
  summary: 'Publish events to a topic of a cloud publish/subscribe service (REST publish, base64 messages).',
  schema: CloudgPubsubConfig,
  input: 'log',
  pullSize: (c) => c.batch.max_events ?? 1000,
  build: (config, ctx) => buildCloudgPubsubSink(config, ctx),
  healthcheck: (config, ctx) => cloudgPubsubHealthcheck(config, ctx),
});
