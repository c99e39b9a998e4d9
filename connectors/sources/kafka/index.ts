/** `kafka`: read Kafka topics as a member of a consumer group, committing offsets once delivered. */
import { defineSource } from '../../../lib/component.js';
import { decodingOutputType } from '../../../lib/codecs/index.js';
import { KafkaSourceConfig } from './config.js';
import { buildKafkaSource } from './source.js';

export { KafkaSourceConfig } from './config.js';
export { buildKafkaSource } from './source.js';

/** The `kafka` source definition; offsets are committed only as far as events were delivered (end-to-end acknowledgements). */
export const kafkaSource = defineSource({
  type: 'kafka',
  summary: 'Read Apache Kafka topics as a member of a consumer group; offsets are committed only once every earlier event of the partition was delivered.',
  schema: KafkaSourceConfig,
  acknowledges: true,
  drainsOnShutdown: true,
  outputs: (config) => [{ type: decodingOutputType(config.decoding) }],
  build: (config, ctx) => buildKafkaSource(config, ctx),
});
