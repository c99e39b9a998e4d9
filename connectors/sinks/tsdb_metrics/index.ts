/** The `tsdb_metrics` sink definition, for the catalog. */
import { defineSink } from '../../../lib/component.js';
import { TsdbMetricsConfig } from './config.js';
import { buildTsdbMetricsSink, tsdbMetricsHealthcheck } from './sink.js';

export { TsdbMetricsConfig } from './config.js';
export { buildTsdbMetricsSink, tsdbMetricsHealthcheck } from './sink.js';

/** Delivers metric events to a time-series database in line protocol. */
export const tsdbMetricsSink = defineSink({
  type: 'tsdb_metrics',
  aliases: ['influxdb_metrics'],
  summary: 'Deliver metric events to a time-series database (line protocol, generation 1 or 2).',
  schema: TsdbMetricsConfig,
  vectorOptions: ['version'],
  input: 'metric',
  pullSize: (c) => Math.min(c.batch.max_events ?? 20, 10_000),
  build: (config, ctx) => buildTsdbMetricsSink(config, ctx),
  healthcheck: (config, ctx) => tsdbMetricsHealthcheck(config, ctx),
});
