/** Options of the `nats` source (Vector's `nats` source). */
import * as v from 'valibot';
import { FRAMING_METHODS, decodingSchema, framingSchema } from '../../../lib/codecs/index.js';
import { fieldPathSchema } from '../../../lib/config/options/field-path.js';
import { posint, uint } from '../../../lib/config/options/numbers.js';
import { natsConnectionEntries } from '../../shared/nats/options.js';

/** `jetstream`: read from a stream through an existing durable pull consumer instead of subscribing. */
const jetstreamSchema = v.optional(
  v.strictObject({
    stream: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description('Stream the consumer belongs to.')),
    consumer: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description('Durable pull consumer to read through; it must exist.')),
    batch_config: v.optional(
      v.strictObject({
        batch: v.optional(v.pipe(posint(), v.description('Most messages asked for per pull.')), 200),
        max_bytes: v.optional(v.pipe(uint(), v.description('Most bytes asked for per pull; 0 means no byte limit.')), 0),
      }),
      {},
    ),
  }),
);

/** The `nats` source options. */
export const NatsSourceConfig = v.strictObject({
  type: v.literal('nats'),
  ...natsConnectionEntries,
  // required, as Vector has it (no default in the source)
  connection_name: v.pipe(v.string(), v.description('Name the client gives the server, shown in its connection list.')),
  subject: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description('Subject to subscribe to; `*` matches one token, `>` the rest.')),
  queue: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description('Queue group: each message goes to one member of the group.'))),
  subject_key_field: v.optional(
    v.union([v.literal(''), fieldPathSchema('Field the message subject is written to (where the event has none); empty: not written.', { notRoot: true })]),
    'subject',
  ),
  jetstream: jetstreamSchema,
  decoding: decodingSchema(['bytes', 'json', 'syslog', 'native_json', 'native'] as const),
  framing: v.optional(framingSchema(FRAMING_METHODS, 'bytes'), {}),
});
/** Validated `nats` source options. */
export type NatsSourceConfig = v.InferOutput<typeof NatsSourceConfig>;
