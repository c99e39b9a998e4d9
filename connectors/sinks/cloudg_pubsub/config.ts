/** Options of the `cloudg_pubsub` sink (Vector's `gcp_pubsub`). */
import * as v from 'valibot';
import { encodingSchema } from '../../../lib/codecs/encoding.js';
import { batchSchema } from '../../../lib/config/options/batch.js';
import { pathItem } from '../../../lib/config/options/checks.js';
import { httpUrlSchema } from '../../../lib/config/options/endpoint.js';
import { sinkObject } from '../../../lib/config/options/envelope.js';
import { REQUEST_DEFAULTS, requestSchema } from '../../../lib/config/options/request.js';
import { templateSchema } from '../../../lib/config/options/template.js';
import { urlTlsSchema } from '../../../lib/config/options/tls.js';
import { cloudgAuthOptions } from '../../shared/cloudg/options.js';

/** The public Pub/Sub service, Vector's default endpoint. */
export const DEFAULT_ENDPOINT = 'https://pubsub.googleapis.com';
/** The service's limits on one publish request (Pub/Sub quotas: 1000 messages, 10 MB). */
export const MAX_MESSAGES = 1000;
export const MAX_REQUEST_BYTES = 10_000_000;

/** Valibot schema of the `cloudg_pubsub` sink. */
export const CloudgPubsubConfig = v.pipe(
  sinkObject(
    'cloudg_pubsub',
    {
      project: v.pipe(v.string(), v.regex(/^[^/\s]+$/, 'must be a project id (no "/" or spaces)'), v.description('Project of the topic.')),
      topic: v.pipe(
        v.string(),
        v.regex(/^[A-Za-z][A-Za-z0-9\-_.~+%]{2,254}$/, 'must be a topic name: 3 to 255 letters, digits and "-_.~+%", starting with a letter'),
        v.check((t) => !t.toLowerCase().startsWith('goog'), 'must not start with "goog"'),
        v.description('Topic inside the project.'),
      ),
      ...cloudgAuthOptions,
      endpoint: v.optional(httpUrlSchema('Base URL of the Pub/Sub REST API.'), DEFAULT_ENDPOINT),
      encoding: encodingSchema(['json', 'text'] as const),
      /** Beyond the spec: message attributes, each value a template. */
      attributes: v.optional(v.record(v.pipe(v.string(), v.minLength(1, 'an attribute name must not be empty')), templateSchema('Attribute value (template).')), {}),
      /** Beyond the spec: the message ordering key (template). */
      ordering_key: v.optional(templateSchema('Ordering key of each message (template).')),
      batch: batchSchema({ max_events: MAX_MESSAGES, max_bytes: MAX_REQUEST_BYTES, timeout_secs: 1 }),
      request: requestSchema(REQUEST_DEFAULTS),
      tls: urlTlsSchema('endpoint'),
    },
    { proxy: true },
  ),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    const batch = (key: string, message: string) => addIssue({ message, path: [pathItem(c, 'batch'), pathItem(c.batch, key)] });
    if ((c.batch.max_bytes ?? 0) > MAX_REQUEST_BYTES) batch('max_bytes', `must be at most ${MAX_REQUEST_BYTES} (the service's limit on one publish request)`);
    if ((c.batch.max_events ?? 0) > MAX_MESSAGES) batch('max_events', `must be at most ${MAX_MESSAGES} (the service's limit on messages per publish request)`);
  }),
);
/** Validated `cloudg_pubsub` options. */
export type CloudgPubsubConfig = v.InferOutput<typeof CloudgPubsubConfig>;
