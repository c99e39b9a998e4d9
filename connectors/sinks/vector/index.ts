/** The `vector` sink definition, for the catalog. */
import { defineSink } from '../../../lib/component.js';
import { VectorSinkConfig } from './config.js';
import { buildVectorSink, vectorHealthcheck } from './sink.js';

export { VectorSinkConfig } from './config.js';
export { buildVectorSink, vectorHealthcheck } from './sink.js';

/** Relays events to Vector (or weir) over the vector protocol. */
export const vectorSink = defineSink({
  type: 'vector',
  summary: 'Relay logs and metrics to Vector or weir over the vector protocol (version 2, gRPC).',
  schema: VectorSinkConfig,
  input: 'any',
  pullSize: (c) => Math.min(c.batch.max_events ?? 1000, 10_000),
  build: (config, ctx) => buildVectorSink(config, ctx),
  healthcheck: (config, ctx) => vectorHealthcheck(config, ctx),
});
