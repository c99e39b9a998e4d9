/** `nats`: receive events from NATS subjects, or from a JetStream consumer with acknowledgements. */
import { defineSource } from '../../../lib/component.js';
import { decodingOutputType } from '../../../lib/codecs/index.js';
import { NatsSourceConfig } from './config.js';
import { buildNatsSource } from './source.js';

export { NatsSourceConfig } from './config.js';
export { buildNatsSource } from './source.js';

/** The `nats` source definition; JetStream messages are acknowledged once delivered (end-to-end acknowledgements). */
export const natsSource = defineSource({
  type: 'nats',
  summary: 'Receive events from NATS subjects (queue groups, wildcards), or from a JetStream durable consumer, acknowledging each message once delivered.',
  schema: NatsSourceConfig,
  acknowledges: true,
  outputs: (config) => [{ type: decodingOutputType(config.decoding) }],
  build: (config, ctx) => buildNatsSource(config, ctx),
});
