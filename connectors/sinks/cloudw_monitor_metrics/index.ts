/** The `cloudw_monitor_metrics` sink definition, for the catalog. */
import { defineSink } from '../../../lib/component.js';
import { CloudwMonitorMetricsConfig } from './config.js';
import { buildCloudwMonitorMetricsSink, cloudwMonitorMetricsHealthcheck } from './sink.js';

export { CloudwMonitorMetricsConfig } from './config.js';
export { buildCloudwMonitorMetricsSink, cloudwMonitorMetricsHealthcheck } from './sink.js';

/** Delivers metric events to a cloud metrics service. */
export const cloudwMonitorMetricsSink = defineSink({
  type: 'cloudw_monitor_metrics',
  aliases: ['aws_cloudwatch_metrics'],
  summary: 'Deliver metric events to a cloud metrics service (PutMetricData): counters, gauges, sets and distributions.',
  schema: CloudwMonitorMetricsConfig,
  input: 'metric',
  pullSize: (c) => Math.min(c.batch.max_events ?? 20, 1000),
  build: (config, ctx) => buildCloudwMonitorMetricsSink(config, ctx),
  healthcheck: (config, ctx) => cloudwMonitorMetricsHealthcheck(config, ctx),
});
