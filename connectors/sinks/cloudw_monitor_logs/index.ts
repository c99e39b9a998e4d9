/** The `cloudw_monitor_logs` sink definition, for the catalog. */
import { defineSink } from '../../../lib/component.js';
import { CloudwMonitorLogsConfig } from './config.js';
import { buildCloudwMonitorLogsSink, cloudwMonitorLogsHealthcheck } from './sink.js';

export { CloudwMonitorLogsConfig } from './config.js';
export { buildCloudwMonitorLogsSink, cloudwMonitorLogsHealthcheck } from './sink.js';

/** Delivers log events to log groups and streams of a cloud log service. */
export const cloudwMonitorLogsSink = defineSink({
  type: 'cloudw_monitor_logs',
  aliases: ['aws_cloudwatch_logs'],
  summary: 'Deliver log events to a cloud log group and stream (PutLogEvents), creating missing groups and streams.',
  schema: CloudwMonitorLogsConfig,
  input: 'log',
  pullSize: (c) => Math.min(c.batch.max_events ?? 10_000, 10_000),
  build: (config, ctx) => buildCloudwMonitorLogsSink(config, ctx),
  healthcheck: (config, ctx) => cloudwMonitorLogsHealthcheck(config, ctx),
});
