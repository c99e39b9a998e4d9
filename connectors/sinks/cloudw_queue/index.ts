/** The `cloudw_queue` sink definition, for the catalog. */
import { defineSink } from '../../../lib/component.js';
import { CloudwQueueSinkConfig } from './config.js';
import { MAX_BATCH_ENTRIES } from './encoder.js';
import { buildCloudwQueueSink, cloudwQueueHealthcheck } from './sink.js';

export { CloudwQueueSinkConfig } from './config.js';
export { buildCloudwQueueSink, cloudwQueueHealthcheck } from './sink.js';

/** Sends events to a message queue, one message per event. */
export const cloudwQueueSink = defineSink({
  type: 'cloudw_queue',
  aliases: ['aws_sqs'],
  summary: 'Send events to a message queue (SQS), one message per event, up to 10 per call; FIFO group and deduplication ids from templates.',
  schema: CloudwQueueSinkConfig,
  input: 'log',
  pullSize: () => MAX_BATCH_ENTRIES * 10,
  build: (config, ctx) => buildCloudwQueueSink(config, ctx),
  healthcheck: (config, ctx) => cloudwQueueHealthcheck(config, ctx),
});
