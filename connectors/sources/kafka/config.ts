/** Options of the `kafka` source (Vector's `kafka` source). */
import * as v from 'valibot';
import { FRAMING_METHODS, decodingSchema, framingSchema } from '../../../lib/codecs/index.js';
import { pathItem } from '../../../lib/config/options/checks.js';
import { acknowledgementsSchema } from '../../../lib/config/options/envelope.js';
import { fieldPathSchema } from '../../../lib/config/options/field-path.js';
import { posint } from '../../../lib/config/options/numbers.js';
import { COMMON_LIBRDKAFKA_OPTIONS, type MappedOption, integerOption, kafkaConnectionEntries, librdkafkaOptionsSchema } from '../../shared/kafka/options.js';

/** librdkafka's `auto.offset.reset` values, and where each starts a partition with no committed offset. */
export const OFFSET_RESETS = { smallest: 'earliest', earliest: 'earliest', beginning: 'earliest', largest: 'latest', latest: 'latest', end: 'latest', error: 'fail' } as const;


/** librdkafka consumer options weir's client has an equivalent for. */
export const SOURCE_LIBRDKAFKA_OPTIONS: Readonly<Record<string, MappedOption>> = {
  ...COMMON_LIBRDKAFKA_OPTIONS,
  'heartbeat.interval.ms': integerOption('heartbeat.interval.ms', 'heartbeatInterval'),
  'max.poll.interval.ms': integerOption('max.poll.interval.ms', 'rebalanceTimeout'),
  'fetch.min.bytes': integerOption('fetch.min.bytes', 'minBytes'),
  'fetch.max.bytes': integerOption('fetch.max.bytes', 'maxBytes'),
};

/** A field the source writes; empty: not written (Vector's optional value paths). */
const fieldOption = (description: string, fallback: string) => v.optional(v.union([v.literal(''), fieldPathSchema(description, { notRoot: true })]), fallback);

/** The `kafka` source options. */
export const KafkaSourceConfig = v.pipe(
  v.strictObject({
    type: v.literal('kafka'),
    ...kafkaConnectionEntries,
    topics: v.pipe(
      v.array(v.pipe(v.string(), v.minLength(1, 'a topic must not be empty')), 'is required: the topics to read (names, or ^regex)'),
      v.minLength(1, 'must list at least one topic'),
      v.check((ts) => ts.every((t) => !t.startsWith('^') || isRegex(t)), 'a topic starting with ^ must be a valid regular expression'),
      v.description('Topics to read; one starting with ^ is a regular expression matched against the cluster\'s topics when the source starts.'),
    ),
    group_id: v.pipe(v.string('is required: the consumer group the source joins'), v.minLength(1, 'must not be empty'), v.description('Consumer group: the group\'s members share the partitions and resume from its committed offsets.')),
    auto_offset_reset: v.optional(
      v.pipe(v.picklist(Object.keys(OFFSET_RESETS) as Array<keyof typeof OFFSET_RESETS>, `must be one of ${Object.keys(OFFSET_RESETS).join(', ')}`), v.description('Where a partition with no committed offset starts: smallest/earliest/beginning, largest/latest/end, or error.')),
      'largest',
    ),
    session_timeout_ms: v.optional(v.pipe(posint(), v.minValue(1000, 'must be at least 1000'), v.description('Time without a heartbeat after which the group drops the member, in milliseconds.')), 10_000),
    fetch_wait_max_ms: v.optional(v.pipe(posint(), v.description('Longest time the broker waits for records to answer a fetch, in milliseconds.')), 100),
    commit_interval_ms: v.optional(v.pipe(posint(), v.description('How often delivered offsets are committed to the group, in milliseconds.')), 5_000),
    drain_timeout_ms: v.optional(v.pipe(posint(), v.description('On a rebalance or shutdown, how long events in flight for the partitions given up may take to be delivered before their offsets are committed; default: half of session_timeout_ms.'))),
    key_field: fieldOption('Field the record key is written to; empty: not written.', 'message_key'),
    topic_key: fieldOption('Field the topic is written to; empty: not written.', 'topic'),
    partition_key: fieldOption('Field the partition is written to; empty: not written.', 'partition'),
    offset_key: fieldOption('Field the offset is written to; empty: not written.', 'offset'),
    headers_key: fieldOption('Field the record headers are written to, as an object; empty: not written.', 'headers'),
    librdkafka_options: librdkafkaOptionsSchema(SOURCE_LIBRDKAFKA_OPTIONS),
    metrics: v.optional(
      v.strictObject({ topic_lag_metric: v.optional(v.pipe(v.boolean(), v.description('Report kafka_consumer_lag per topic and partition.')), false) }),
      {},
    ),
    decoding: decodingSchema(['bytes', 'json', 'syslog', 'native_json', 'native'] as const),
    framing: v.optional(framingSchema(FRAMING_METHODS, 'bytes'), {}),
    acknowledgements: acknowledgementsSchema,
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    if (c.drain_timeout_ms !== undefined && c.drain_timeout_ms > c.session_timeout_ms)
      addIssue({ message: `must not exceed session_timeout_ms (${c.session_timeout_ms})`, path: [pathItem(c, 'drain_timeout_ms')] });
  }),
);
export type KafkaSourceConfig = v.InferOutput<typeof KafkaSourceConfig>;

function isRegex(t: string): boolean {
  try {
    new RegExp(t);
    return true;
  } catch {
    return false;
  }
}
