/** Options of the `prometheus_exporter` sink (names and defaults from Vector's). */
import * as v from 'valibot';
import { sinkObject } from '../../../lib/config/options/envelope.js';
import { parseSocketAddress } from '../../../lib/net/socket-address.js';
import { listenerTlsSchema } from '../../shared/listener-config.js';
import { bucketsSchema, defaultNamespaceSchema, quantilesSchema, serverAuthSchema } from '../../shared/prometheus/options.js';

/** A `host:port` to listen on. */
export const listenAddressSchema = (fallback: string, what: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.check((s) => typeof parseSocketAddress(s) !== 'string', 'must be host:port'),
      v.description(what),
    ),
    fallback,
  );

/** The `prometheus_exporter` sink options. */
export const PrometheusExporterConfig = sinkObject('prometheus_exporter', {
  address: listenAddressSchema('0.0.0.0:9598', 'Address (`host:port`) on which `/metrics` is served.'),
  default_namespace: defaultNamespaceSchema,
  auth: serverAuthSchema,
  tls: listenerTlsSchema,
  buckets: bucketsSchema,
  quantiles: quantilesSchema,
  distributions_as_summaries: v.optional(
    v.pipe(v.boolean(), v.description('Render distributions as summaries over `quantiles` instead of histograms over `buckets`.')),
    false,
  ),
  flush_period_secs: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(0), v.description('A series not updated for this many seconds is dropped (checked once per period); 0 keeps every series.')),
    60,
  ),
  suppress_timestamp: v.optional(v.pipe(v.boolean(), v.description('Leave timestamps out of the exposition.')), false),
});
/** Validated `prometheus_exporter` options. */
export type PrometheusExporterConfig = v.InferOutput<typeof PrometheusExporterConfig>;
