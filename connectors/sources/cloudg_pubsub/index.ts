/** `cloudg_pubsub`: pull events from a Pub/Sub subscription, acknowledging messages once delivered. */
import { defineSource } from '../../../lib/component.js';
import { decodingOutputType } from '../../../lib/codecs/index.js';
import { CloudgPubsubSourceConfig } from './config.js';
import { buildCloudgPubsubSource } from './source.js';

export { CloudgPubsubSourceConfig } from './config.js';
export { buildCloudgPubsubSource } from './source.js';

/** The `cloudg_pubsub` source definition; it waits for delivery before acknowledging (end-to-end acknowledgements). */
export const cloudgPubsubSource = defineSource({
  type: 'cloudg_pubsub',
  aliases: ['gcp_pubsub'],
  summary: 'Pull events from a subscription of a cloud publish/subscribe service; messages are acknowledged once their events are delivered.',
  schema: CloudgPubsubSourceConfig,
  acknowledges: true,
  outputs: (config) => [{ type: decodingOutputType(config.decoding) }],
  build: (config, ctx) => buildCloudgPubsubSource(config, ctx),
});
