/** `demo_logs`: generates fake log lines, at an interval or as fast as backpressure allows. */
import { defineSource } from '../../../lib/component.js';
import { decodingOutputType } from '../../../lib/codecs/index.js';
import { DemoLogsConfig } from './config.js';
import { buildDemoLogsSource } from './source.js';

export { DemoLogsConfig } from './config.js';
export { buildDemoLogsSource } from './source.js';

/** The `demo_logs` source definition. */
export const demoLogsSource = defineSource({
  type: 'demo_logs',
  summary: 'Generate fake log events (shuffle, apache_common, apache_error, syslog, bsd_syslog, json).',
  schema: DemoLogsConfig,
  outputs: (config) => [{ type: decodingOutputType(config.decoding) }],
  build: (config, ctx) => buildDemoLogsSource(config, ctx),
});
