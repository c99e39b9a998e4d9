/** `logfwd`: receive logs over the fluent forward protocol. */
import { defineSource } from '../../../lib/component.js';
import { LogfwdSourceConfig } from './config.js';
import { buildLogfwdSource } from './source.js';

export { LogfwdSourceConfig } from './config.js';
export { buildLogfwdSource } from './source.js';

/** The `logfwd` source definition. */
export const logfwdSource = defineSource({
  drainsOnShutdown: true,
  acknowledges: true,
  type: 'logfwd',
  aliases: ['fluent'],
  summary: 'Receive logs from fluentd, Fluent Bit or any fluent forward protocol client.',
  schema: LogfwdSourceConfig,
  build: buildLogfwdSource,
});
