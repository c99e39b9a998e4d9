/** The `kafka` sink definition, for the catalog. */
import { defineSink } from '../../../lib/component.js';
import { KafkaSinkConfig } from './config.js';
import { KAFKA_WORKER_OPTIONS } from './encoder.js';
import { buildKafkaSink, kafkaHealthcheck } from './sink.js';

export { KafkaSinkConfig } from './config.js';
export { buildKafkaSink, kafkaHealthcheck } from './sink.js';

/** Writes events to Kafka topics, one record per event; delivered once the broker acknowledged the record. */
export const kafkaSink = defineSink({
  type: 'kafka',
  summary: 'Write events to Apache Kafka topics, one record per event (key, headers, compression); delivered once the broker acknowledged the record.',
  schema: KafkaSinkConfig,
  // logs and metrics, as the codec takes them (Vector's sink takes what its encoder takes)
  input: 'any',
  pullSize: (config) => Math.min(config.batch.max_events ?? 10_000, 10_000),
  // text codecs: a worker writes each value and reads its topic, key, headers and timestamp
  workerEncoding: (config) => (config.encoding.codec === 'native' ? undefined : { options: KAFKA_WORKER_OPTIONS, copiesMessage: config.encoding.codec === 'text' }),
  build: (config, ctx) => buildKafkaSink(config, ctx),
  healthcheck: (config) => kafkaHealthcheck(config),
});
