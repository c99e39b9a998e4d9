/** Options of the `kafka` sink (Vector's `kafka` sink). */
import * as v from 'valibot';
import { encodingSchema } from '../../../lib/codecs/encoding.js';
import { batchSchema } from '../../../lib/config/options/batch.js';
import { pathItem } from '../../../lib/config/options/checks.js';
import { sinkObject } from '../../../lib/config/options/envelope.js';
import { fieldPathSchema } from '../../../lib/config/options/field-path.js';
import { posint } from '../../../lib/config/options/numbers.js';
import { templateSchema } from '../../../lib/config/options/template.js';
import { COMMON_LIBRDKAFKA_OPTIONS, type MappedOption, integerOption, kafkaConnectionEntries, librdkafkaOptionsSchema } from '../../shared/kafka/options.js';

/** Codecs that encode one event into one record value. */
const KAFKA_SINK_CODECS = ['json', 'text', 'logfmt', 'raw_message', 'gelf', 'native_json', 'native'] as const;

/** Vector's compression names; zstd needs a zlib with zstd (Node 22), so it is refused here. */
export const KAFKA_COMPRESSIONS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;


/** librdkafka producer options weir's client has an equivalent for; the batch ones override `batch.*`. */
export const SINK_LIBRDKAFKA_OPTIONS: Readonly<Record<string, MappedOption>> = {
  ...COMMON_LIBRDKAFKA_OPTIONS,
  acks: {
    apply(value, into) {
      const acks = { all: -1, '-1': -1, '1': 1, '0': 0 }[value];
      if (acks === undefined) throw new Error('acks must be all, -1, 1 or 0');
      into.acks = acks;
    },
  },
  'request.required.acks': { apply: (value, into) => SINK_LIBRDKAFKA_OPTIONS.acks!.apply(value, into) },
  'message.timeout.ms': integerOption('message.timeout.ms', 'messageTimeoutMs'),
  'batch.num.messages': integerOption('batch.num.messages', 'batchMaxEvents'),
  'batch.size': integerOption('batch.size', 'batchMaxBytes'),
  'queue.buffering.max.ms': integerOption('queue.buffering.max.ms', 'batchTimeoutMs', 0),
  'linger.ms': integerOption('linger.ms', 'batchTimeoutMs', 0),
};

/** Valibot schema of the `kafka` sink. */
export const KafkaSinkConfig = v.pipe(
  sinkObject('kafka', {
    ...kafkaConnectionEntries,
    topic: templateSchema('Topic each event is written to (template); events are batched per rendered topic.', { nonEmpty: true }),
    healthcheck_topic: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description('Topic the health check asks the metadata of; unset: the topic when it is not a template, else every topic.'))),
    key_field: v.optional(fieldPathSchema('Field whose value is the record key (records with the same key go to the same partition); absent: no key.')),
    headers_key: v.optional(fieldPathSchema('Field holding an object whose string values become the record headers.')),
    encoding: encodingSchema(KAFKA_SINK_CODECS),
    compression: v.optional(v.pipe(v.picklist(KAFKA_COMPRESSIONS, `must be one of ${KAFKA_COMPRESSIONS.join(', ')}`), v.description('Compression of record batches: none, gzip, snappy or lz4.')), 'none'),
    // librdkafka's defaults, which Vector's unset `batch.*` leaves in force: 5 ms linger, 10000 messages, 1 MB
    batch: batchSchema({ max_bytes: 1_000_000, max_events: 10_000, timeout_secs: 0.005 }),
    message_timeout_ms: v.optional(v.pipe(posint(), v.description('Time a record may take to be acknowledged, retries included, before it counts as failed, in milliseconds.')), 300_000),
    librdkafka_options: librdkafkaOptionsSchema(SINK_LIBRDKAFKA_OPTIONS),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    if (c.compression === 'zstd') addIssue({ message: 'zstd is not supported: Node 20\'s zlib has no zstd; use gzip, snappy or lz4', path: [pathItem(c, 'compression')] });
  }),
);
/** Validated `kafka` sink options. */
export type KafkaSinkConfig = v.InferOutput<typeof KafkaSinkConfig>;
