/** `prometheus_remote_write` sink: metrics sent with the Prometheus remote-write protocol. */
import { defineSink } from '../../../lib/component.js';
import { PrometheusRemoteWriteSinkConfig } from './config.js';
import { buildPrometheusRemoteWriteSink, prometheusRemoteWriteHealthcheck } from './sink.js';

export { PrometheusRemoteWriteSinkConfig } from './config.js';
export { buildPrometheusRemoteWriteSink } from './sink.js';

/** The `prometheus_remote_write` sink definition. */
export const prometheusRemoteWriteSink = defineSink({
  type: 'prometheus_remote_write',
  summary: 'Deliver metrics to a Prometheus remote-write endpoint (snappy protobuf).',
  schema: PrometheusRemoteWriteSinkConfig,
  input: 'metric',
  vectorOptions: ['aws.endpoint', 'retry_strategy'],
  pullSize: (c) => Math.min(c.batch.max_events ?? 1000, 10_000),
  build: (config, ctx) => buildPrometheusRemoteWriteSink(config, ctx),
  healthcheck: (config, ctx) => prometheusRemoteWriteHealthcheck(config, ctx),
});
