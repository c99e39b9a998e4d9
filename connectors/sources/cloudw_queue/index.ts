/** `cloudw_queue`: receive events from a message queue (SQS), deleting messages once delivered. */
import { defineSource } from '../../../lib/component.js';
import { decodingOutputType } from '../../../lib/codecs/index.js';
import { CloudwQueueSourceConfig } from './config.js';
import { buildCloudwQueueSource } from './source.js';

export { CloudwQueueSourceConfig } from './config.js';
export { buildCloudwQueueSource } from './source.js';

/** The `cloudw_queue` source definition; it waits for delivery before deleting (end-to-end acknowledgements). */
export const cloudwQueueSource = defineSource({
  type: 'cloudw_queue',
  aliases: ['aws_sqs'],
  summary: 'Receive events from a message queue (SQS) by long polling; messages are deleted once their events are delivered.',
  schema: CloudwQueueSourceConfig,
  acknowledges: true,
  outputs: (config) => [{ type: decodingOutputType(config.decoding) }],
  build: (config, ctx) => buildCloudwQueueSource(config, ctx),
});
