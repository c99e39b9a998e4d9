/** The `cloudw_stream` sink definition, for the catalog. */
import { defineSink } from '../../../lib/component.js';
import { CloudwStreamSinkConfig } from './config.js';
import { buildCloudwStreamSink, cloudwStreamHealthcheck } from './sink.js';

export { CloudwStreamSinkConfig } from './config.js';
export { buildCloudwStreamSink, cloudwStreamHealthcheck } from './sink.js';

/** Puts log events as records on a cloud data stream. */
export const cloudwStreamSink = defineSink({
  type: 'cloudw_stream',
  aliases: ['aws_kinesis_streams'],
  summary: 'Put events as records on a data stream (Kinesis) with PutRecords, up to 500 per call; only failed records are sent again.',
  schema: CloudwStreamSinkConfig,
  input: 'log',
  pullSize: (c) => Math.min(c.batch.max_events ?? 500, 10_000),
  build: (config, ctx) => buildCloudwStreamSink(config, ctx),
  healthcheck: (config, ctx) => cloudwStreamHealthcheck(config, ctx),
});
