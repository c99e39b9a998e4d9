/** The `nats` sink definition, for the catalog. */
import { defineSink } from '../../../lib/component.js';
import { NatsSinkConfig } from './config.js';
import { MAX_MESSAGES_PER_ATTEMPT, buildNatsSink, natsHealthcheck } from './sink.js';

export { NatsSinkConfig } from './config.js';
export { buildNatsSink, natsHealthcheck } from './sink.js';

/** Publishes events to NATS subjects, one message per event, optionally through JetStream. */
export const natsSink = defineSink({
  type: 'nats',
  summary: 'Publish events to subjects on NATS, one message per event; with JetStream each message is delivered once the stream acknowledged it.',
  schema: NatsSinkConfig,
  input: 'log',
  pullSize: () => MAX_MESSAGES_PER_ATTEMPT * 10,
  build: (config, ctx) => buildNatsSink(config, ctx),
  healthcheck: (config) => natsHealthcheck(config),
});
