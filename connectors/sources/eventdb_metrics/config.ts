/** Options of the `eventdb_metrics` source (defaults from Vector's `eventstoredb_metrics`). */
import * as v from 'valibot';
import { httpUrlSchema } from '../../../lib/config/options/endpoint.js';
import { acknowledgementsSchema } from '../../../lib/config/options/envelope.js';
import { proxySchema } from '../../../lib/config/options/proxy.js';

/** The `eventdb_metrics` source options. */
export const EventdbMetricsConfig = v.strictObject({
  type: v.literal('eventdb_metrics'),
  endpoint: v.optional(httpUrlSchema('Statistics endpoint to scrape.'), 'https://localhost:2113/stats'),
  scrape_interval_secs: v.optional(v.pipe(v.number(), v.gtValue(0, 'must be greater than 0'), v.description('Seconds between scrapes; the first runs at start.')), 15),
  default_namespace: v.optional(v.pipe(v.string(), v.description('Namespace of the emitted metrics.')), 'eventdb'),
  proxy: proxySchema,
  acknowledgements: acknowledgementsSchema,
});
/** Validated `eventdb_metrics` source options. */
export type EventdbMetricsConfig = v.InferOutput<typeof EventdbMetricsConfig>;
