/** Options of the `nats` sink (Vector's `nats` sink). */
import * as v from 'valibot';
import { encodingSchema } from '../../../lib/codecs/encoding.js';
import { pathItem } from '../../../lib/config/options/checks.js';
import { sinkObject } from '../../../lib/config/options/envelope.js';
import { REQUEST_DEFAULTS, requestSchema } from '../../../lib/config/options/request.js';
import { templateSchema } from '../../../lib/config/options/template.js';
import { natsConnectionEntries } from '../../shared/nats/options.js';

/** Codecs that encode one log event into one message. */
const NATS_SINK_CODECS = ['json', 'text', 'logfmt', 'raw_message', 'gelf', 'native_json', 'native'] as const;

/** `jetstream` as an object: publish to a stream and wait for its acknowledgement. */
const jetstreamObject = v.strictObject({
  enabled: v.optional(v.pipe(v.boolean(), v.description('Publish through JetStream and wait for the stream to store each message.')), false),
  headers: v.optional(
    v.strictObject({
      message_id: v.optional(templateSchema('Template of the Nats-Msg-Id header, by which the stream drops duplicates; a failed render sends no header.')),
    }),
    {},
  ),
});

/** `jetstream = true | false` is short for `jetstream.enabled`. */
const jetstreamSchema = v.pipe(
  v.optional(v.union([v.boolean(), jetstreamObject], 'must be true, false or an object of enabled and headers'), false),
  v.transform((j): v.InferOutput<typeof jetstreamObject> => (typeof j === 'boolean' ? { enabled: j, headers: {} } : j)),
);

/** Valibot schema of the `nats` sink. */
export const NatsSinkConfig = v.pipe(
  sinkObject('nats', {
    ...natsConnectionEntries,
    subject: templateSchema('Subject each event is published to (template).', { nonEmpty: true }),
    connection_name: v.optional(v.pipe(v.string(), v.description('Name the client gives the server, shown in its connection list.')), 'vector'),
    encoding: encodingSchema(NATS_SINK_CODECS),
    jetstream: jetstreamSchema,
    // one request at a time unless set, as Vector defaults this sink
    request: requestSchema({ ...REQUEST_DEFAULTS, concurrency: 'none' }),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    // messages are not HTTP requests: accepting headers would ignore them
    if (Object.keys(c.request.headers).length > 0)
      addIssue({ message: 'does not apply to this sink: it publishes NATS messages, not HTTP requests', path: [pathItem(c, 'request'), pathItem(c.request, 'headers')] });
  }),
);
/** Validated `nats` sink options. */
export type NatsSinkConfig = v.InferOutput<typeof NatsSinkConfig>;
