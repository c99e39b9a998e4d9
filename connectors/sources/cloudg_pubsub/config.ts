/** Options of the `cloudg_pubsub` source (Vector's `gcp_pubsub` source). */
import * as v from 'valibot';
import { FRAMING_METHODS, decodingSchema, framingSchema } from '../../../lib/codecs/index.js';
import { httpUrlSchema } from '../../../lib/config/options/endpoint.js';
import { acknowledgementsSchema } from '../../../lib/config/options/envelope.js';
import { posint, secs } from '../../../lib/config/options/numbers.js';
import { proxySchema } from '../../../lib/config/options/proxy.js';
import { urlTlsSchema } from '../../../lib/config/options/tls.js';
import { cloudgAuthOptions } from '../../shared/cloudg/options.js';

/** The public Pub/Sub service, Vector's default endpoint. */
export const DEFAULT_ENDPOINT = 'https://pubsub.googleapis.com';

/** The `cloudg_pubsub` source options. */
export const CloudgPubsubSourceConfig = v.strictObject({
  type: v.literal('cloudg_pubsub'),
  project: v.pipe(v.string(), v.regex(/^[^/\s]+$/, 'must be a project id (no "/" or spaces)'), v.description('Project of the subscription.')),
  subscription: v.pipe(v.string(), v.regex(/^[^/\s]+$/, 'must be a subscription name (no "/" or spaces)'), v.description('Subscription to pull from, inside the project.')),
  endpoint: v.optional(httpUrlSchema('Base URL of the Pub/Sub REST API.'), DEFAULT_ENDPOINT),
  ...cloudgAuthOptions,
  // the service's own bounds on an acknowledgement deadline
  ack_deadline_secs: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(10, 'must be between 10 and 600'), v.maxValue(600, 'must be between 10 and 600'), v.description('Acknowledgement deadline set on every pulled message; one not acknowledged by then is delivered again.')),
    600,
  ),
  retry_delay_secs: v.optional(v.pipe(secs(), v.description('Wait after a failed pull before the next one.')), 1),
  max_concurrency: v.optional(v.pipe(posint(), v.description('Most pull loops running at once.')), 10),
  full_response_size: v.optional(v.pipe(posint(), v.description('Messages in one answer that mark its loop busy; when every loop is busy another one starts.')), 100),
  poll_time_seconds: v.optional(v.pipe(secs(), v.minValue(0.01, 'must be at least 0.01'), v.description('How often to check whether every loop is busy, to start another.')), 2),
  keepalive_secs: v.optional(
    v.pipe(secs(), v.minValue(1, 'must be at least 1'), v.description('A pull loop that received nothing for this long ends when its pull comes back empty, unless it is the only one.')),
    60,
  ),
  decoding: decodingSchema(['bytes', 'json', 'syslog', 'native_json', 'native'] as const),
  framing: v.optional(framingSchema(FRAMING_METHODS, 'bytes'), {}),
  tls: urlTlsSchema('endpoint'),
  proxy: proxySchema,
  acknowledgements: acknowledgementsSchema,
});
/** Validated `cloudg_pubsub` source options. */
export type CloudgPubsubSourceConfig = v.InferOutput<typeof CloudgPubsubSourceConfig>;
