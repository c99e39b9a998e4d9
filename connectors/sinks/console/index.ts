/** `console`: write events to standard output or standard error. */
import { defineSink } from '../../../lib/component.js';
import { streamWorkerEncoding } from '../../shared/stream-records.js';
import { ConsoleSinkConfig } from './config.js';
import { buildConsoleSink } from './sink.js';

export { ConsoleSinkConfig } from './config.js';
export { buildConsoleSink } from './sink.js';

/** The `console` sink definition. */
export const consoleSink = defineSink({
  type: 'console',
  summary: 'Write events to standard output or standard error, encoded and framed.',
  schema: ConsoleSinkConfig,
  input: 'any',
  // text codecs: a worker writes each event's text, the sink frames runs of them (as `socket`)
  workerEncoding: (config) => streamWorkerEncoding(config.encoding),
  build: (config, ctx) => buildConsoleSink(config, ctx),
});
