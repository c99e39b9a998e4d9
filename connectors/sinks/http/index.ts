/** The `http` sink definition, for the catalog. */
import { defineSink } from '../../../lib/component.js';
import { HttpSinkConfig } from './config.js';
import { buildHttpSink, httpHealthcheck } from './sink.js';

export { HttpSinkConfig } from './config.js';
export { buildHttpSink, httpHealthcheck } from './sink.js';

/** The options a pipeline worker builds this sink's encoder from: its codec, framing and body affixes. */
const WORKER_OPTIONS = ['encoding', 'framing', 'payload_prefix', 'payload_suffix'] as const;

/** Delivers events to an HTTP server. */
export const httpSink = defineSink({
  type: 'http',
  summary: 'Deliver events to an HTTP server.',
  schema: HttpSinkConfig,
  input: 'any',
  pullSize: (c) => Math.min(c.batch.max_events ?? 1000, 10_000),
  // every configuration: the skeleton sends pre-encoded events as it sends those it encodes
  workerEncoding: (config) => ({ options: WORKER_OPTIONS, copiesMessage: config.encoding.codec === 'text' }),
  build: (config, ctx) => buildHttpSink(config, ctx),
  healthcheck: (config, ctx) => httpHealthcheck(config, ctx),
});
