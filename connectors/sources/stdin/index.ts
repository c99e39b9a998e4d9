/** `stdin`: read events from standard input. */
import { defineSource } from '../../../lib/component.js';
import { decodingOutputType } from '../../../lib/codecs/index.js';
import { StdinSourceConfig } from './config.js';
import { buildStdinSource } from './source.js';

export { StdinSourceConfig } from './config.js';
export { buildStdinSource } from './source.js';

/** The `stdin` source definition. */
export const stdinSource = defineSource({
  drainsOnShutdown: true,
  type: 'stdin',
  summary: 'Read events from standard input, framed and decoded; completes at end of input.',
  schema: StdinSourceConfig,
  outputs: (config) => [{ type: decodingOutputType(config.decoding) }],
  build: (config, ctx) => buildStdinSource(config, ctx),
});
