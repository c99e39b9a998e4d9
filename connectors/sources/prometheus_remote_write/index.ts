/** `prometheus_remote_write` source: metrics pushed by Prometheus's remote write. */
import { defineSource } from '../../../lib/component.js';
import { PrometheusRemoteWriteSourceConfig } from './config.js';
import { buildPrometheusRemoteWriteSource } from './source.js';

export { PrometheusRemoteWriteSourceConfig } from './config.js';
export { buildPrometheusRemoteWriteSource } from './source.js';

/** The `prometheus_remote_write` source definition. */
export const prometheusRemoteWriteSource = defineSource({
  type: 'prometheus_remote_write',
  summary: 'Receive metrics over the Prometheus remote-write protocol (snappy protobuf).',
  schema: PrometheusRemoteWriteSourceConfig,
  outputs: () => [{ type: 'metric' }],
  acknowledges: true,
  vectorOptions: ['keepalive'],
  build: buildPrometheusRemoteWriteSource,
});
