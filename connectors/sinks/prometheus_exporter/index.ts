/** `prometheus_exporter`: serve the metrics that reach it on a `/metrics` endpoint Prometheus scrapes. */
import { defineSink } from '../../../lib/component.js';
import { PrometheusExporterConfig } from './config.js';
import { buildPrometheusExporterSink } from './sink.js';

export { PrometheusExporterConfig } from './config.js';
export { buildPrometheusExporterSink } from './sink.js';

/** The `prometheus_exporter` sink definition. */
export const prometheusExporterSink = defineSink({
  type: 'prometheus_exporter',
  summary: 'Expose metric events on a Prometheus-compatible /metrics endpoint.',
  schema: PrometheusExporterConfig,
  input: 'metric',
  build: (config, ctx) => buildPrometheusExporterSink(config, ctx),
});
