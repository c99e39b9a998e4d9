/** The `logsvc_metrics` sink definition, for the catalog. */
import { defineSink } from '../../../lib/component.js';
import { LogsvcMetricsConfig } from './config.js';
import { buildLogsvcMetricsSink, logsvcMetricsHealthcheck } from './sink.js';

export { LogsvcMetricsConfig } from './config.js';
export { buildLogsvcMetricsSink, logsvcMetricsHealthcheck } from './sink.js';

/** Delivers metric events, as log events, to a hosted log service over its HEC endpoint. */
export const logsvcMetricsSink = defineSink({
  type: 'logsvc_metrics',
  aliases: ['humio_metrics'],
  summary: 'Deliver metric events, turned into log events, to a hosted log service over its HEC-compatible endpoint.',
  schema: LogsvcMetricsConfig,
  vectorOptions: ['metric_tag_values'],
  input: 'metric',
  pullSize: (c) => Math.min(c.batch.max_events ?? 1000, 10_000),
  build: (config, ctx) => buildLogsvcMetricsSink(config, ctx),
  healthcheck: (config, ctx) => logsvcMetricsHealthcheck(config, ctx),
});
