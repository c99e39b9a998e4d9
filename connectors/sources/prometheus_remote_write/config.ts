/** Options of the `prometheus_remote_write` source (names and defaults from Vector's). */
import * as v from 'valibot';
import { acknowledgementsSchema } from '../../../lib/config/options/envelope.js';
import { parseSocketAddress } from '../../../lib/net/socket-address.js';
import { listenerBasicAuthSchema, listenerTlsSchema } from '../../shared/listener-config.js';

/** The `prometheus_remote_write` source options. */
export const PrometheusRemoteWriteSourceConfig = v.strictObject({
  type: v.literal('prometheus_remote_write'),
  address: v.pipe(
    v.string(),
    v.check((s) => typeof parseSocketAddress(s) !== 'string', 'must be host:port'),
    v.description('Address (`host:port`) to accept remote-write requests on.'),
  ),
  path: v.optional(v.pipe(v.string(), v.startsWith('/', 'must start with /'), v.description('The one URL path requests are accepted on (e.g. `/api/v1/write`); others get 404.')), '/'),
  auth: listenerBasicAuthSchema,
  tls: listenerTlsSchema,
  metadata_conflict_strategy: v.optional(
    v.pipe(v.picklist(['reject', 'ignore']), v.description('A metric declared with two types in one request: `reject` answers 400, `ignore` keeps the first.')),
    'reject',
  ),
  skip_nan_values: v.optional(v.pipe(v.boolean(), v.description('Drop samples whose value is NaN (Prometheus\'s staleness markers among them).')), false),
  acknowledgements: acknowledgementsSchema,
});
/** Validated `prometheus_remote_write` source options. */
export type PrometheusRemoteWriteSourceConfig = v.InferOutput<typeof PrometheusRemoteWriteSourceConfig>;
