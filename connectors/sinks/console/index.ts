/** `console`: write events to standard output or standard error. */
import { defineSink } from '../../../lib/component.js';
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
  build: (config, ctx) => buildConsoleSink(config, ctx),
});
