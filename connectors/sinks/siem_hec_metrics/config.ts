/** Options of the `siem_hec_metrics` sink (Vector's `splunk_hec_metrics`). */
import * as v from 'valibot';
import { batchSchema } from '../../../lib/config/options/batch.js';
import { compressionSchema } from '../../../lib/config/options/encoding.js';
import { httpUrlSchema } from '../../../lib/config/options/endpoint.js';
import { sinkObject } from '../../../lib/config/options/envelope.js';
import { posint } from '../../../lib/config/options/numbers.js';
import { requestSchema } from '../../../lib/config/options/request.js';
import { templateSchema } from '../../../lib/config/options/template.js';
import { urlTlsSchema } from '../../../lib/config/options/tls.js';
import { hecToken } from '../../shared/hec/options.js';

/**
 * `acknowledgements`: the sink-level switch every sink has, plus the collector's indexer
 * acknowledgements (Vector's defaults: on, 1,000,000 pending, every 10 s, 30 queries).
 */
export const hecAcknowledgementsSchema = v.optional(
  v.strictObject({
    enabled: v.optional(v.boolean()),
    indexer_acknowledgements_enabled: v.optional(v.pipe(v.boolean(), v.description('Wait for the collector to confirm each batch was indexed.')), true),
    max_pending_acks: v.optional(v.pipe(posint(), v.description('Requests that may await an acknowledgement at once; more wait.')), 1_000_000),
    query_interval: v.optional(v.pipe(posint(), v.description('Seconds between acknowledgement queries.')), 10),
    retry_limit: v.optional(v.pipe(posint(), v.description('Queries per acknowledgement id before its batch is given up.')), 30),
  }),
  {},
);

const base = sinkObject(
  'siem_hec_metrics',
  {
    endpoint: httpUrlSchema('Base URL of the HTTP event collector; events go to <endpoint>/services/collector/event.'),
    default_token: hecToken('Collector token, sent as `Authorization: Splunk <token>`.'),
    default_namespace: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description('Namespace of metrics that have none; joined to the name with ".".'))),
    host_key: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description('Metric tag whose value becomes the envelope host.')), 'host'),
    index: v.optional(templateSchema('Index to write to (template).')),
    source: v.optional(templateSchema('Source of the events (template).')),
    sourcetype: v.optional(templateSchema('Source type of the events (template).')),
    compression: compressionSchema(['none', 'gzip', 'zlib'] as const, 'none'),
    // Vector's defaults: 1,000,000 bytes, no event limit
    batch: batchSchema({ max_bytes: 1_000_000, timeout_secs: 1 }),
    request: requestSchema(),
    tls: urlTlsSchema('endpoint'),
  },
  { proxy: true },
);

/** Valibot schema of the `siem_hec_metrics` sink. */
export const SiemHecMetricsConfig = v.strictObject({ ...base.entries, acknowledgements: hecAcknowledgementsSchema });
/** Validated `siem_hec_metrics` options. */
export type SiemHecMetricsConfig = v.InferOutput<typeof SiemHecMetricsConfig>;
