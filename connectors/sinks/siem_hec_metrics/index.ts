/** The `siem_hec_metrics` sink definition, for the catalog. */
import { defineSink } from '../../../lib/component.js';
import { SiemHecMetricsConfig } from './config.js';
import { buildSiemHecMetricsSink, siemHecMetricsHealthcheck } from './sink.js';

export { SiemHecMetricsConfig } from './config.js';
export { buildSiemHecMetricsSink, siemHecMetricsHealthcheck } from './sink.js';

/** Delivers metric events to an HTTP event collector, with indexer acknowledgements. */
export const siemHecMetricsSink = defineSink({
  type: 'siem_hec_metrics',
  aliases: ['splunk_hec_metrics'],
  summary: 'Deliver metric events (counters, gauges) to an HTTP event collector, confirmed by indexer acknowledgements.',
  schema: SiemHecMetricsConfig,
  input: 'metric',
  pullSize: (c) => Math.min(c.batch.max_events ?? 1000, 10_000),
  build: (config, ctx) => buildSiemHecMetricsSink(config, ctx),
  healthcheck: (config, ctx) => siemHecMetricsHealthcheck(config, ctx),
});
