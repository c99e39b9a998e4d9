/** `http_server` (alias `http`, Vector's older name): receive events in HTTP request bodies. */
import { defineSource } from '../../../lib/component.js';
import { decodingOutputType } from '../../../lib/codecs/index.js';
import { HttpServerSourceConfig, codecsOf } from './config.js';
import { httpServerWorkerDecoding } from './decoder.js';
import { buildHttpServerSource } from './source.js';

export { HttpServerSourceConfig } from './config.js';
export { buildHttpServerSource } from './source.js';

/** The `http_server` source definition. */
export const httpServerSource = defineSource({
  drainsOnShutdown: true,
  acknowledges: true,
  type: 'http_server',
  aliases: ['http'],
  summary: 'Receive events in HTTP request bodies on one path, framed and decoded.',
  schema: HttpServerSourceConfig,
  outputs: (config) => [{ type: decodingOutputType(codecsOf(config).decoding) }],
  vectorOptions: ['auth.source'],
  workerDecoding: httpServerWorkerDecoding,
  build: buildHttpServerSource,
});
