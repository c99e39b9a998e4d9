/** Options of the `logsvc_metrics` sink (Vector's `humio_metrics`). */
import * as v from 'valibot';
import { metricTagValuesOption } from '../../../lib/codecs/encoding.js';
import { batchSchema } from '../../../lib/config/options/batch.js';
import { compressionSchema } from '../../../lib/config/options/encoding.js';
import { httpUrlSchema } from '../../../lib/config/options/endpoint.js';
import { sinkObject } from '../../../lib/config/options/envelope.js';
import { fieldPathSchema } from '../../../lib/config/options/field-path.js';
import { REQUEST_DEFAULTS, requestSchema } from '../../../lib/config/options/request.js';
import { templateSchema } from '../../../lib/config/options/template.js';
import { timezoneSchema } from '../../../lib/config/options/timezone.js';
import { urlTlsSchema } from '../../../lib/config/options/tls.js';
import { hecToken } from '../../shared/hec/options.js';

/**
 * The default endpoint: weir uses the address of the public service
 * Vector defaults to, so a config that names only `token` reaches it.
 */
export const DEFAULT_ENDPOINT = 'https://cloud.humio.com';

/** This sink's request defaults: concurrency adaptive, ewma 0.4, deviation scale 2.5, unlimited retries. */
const LOGSVC_REQUEST_DEFAULTS = { ...REQUEST_DEFAULTS, concurrency: 'adaptive' as const, retry_attempts: 9.223372036854776e18, ewma_alpha: 0.4, rtt_deviation_scale: 2.5 };

/** True for a URL with nothing after the host but an optional `/`. */
const hasNoPath = (u: string): boolean => {
  if (!URL.canParse(u)) return true; // reported by the URL check
  const url = new URL(u);
  return url.pathname === '/' && url.search === '' && url.hash === '';
};

/** Valibot schema of the `logsvc_metrics` sink. */
export const LogsvcMetricsConfig = sinkObject(
  'logsvc_metrics',
  {
    token: hecToken('Ingest token, sent as `Authorization: Splunk <token>`.'),
    endpoint: v.optional(
      v.pipe(
        httpUrlSchema('Base URL of the service; the ingest path is appended.'),
        v.check(hasNoPath, `must be a base URL with no path, query or fragment (the ingest path /services/collector/event is appended), e.g. "${DEFAULT_ENDPOINT}"`),
      ),
      DEFAULT_ENDPOINT,
    ),
    event_type: v.optional(templateSchema('Parser the service applies to the events (template); sent as the envelope sourcetype.')),
    host_key: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description('Log field whose value becomes the envelope host.')), 'host'),
    host_tag: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description('Metric tag moved to the host field of the log made from the metric.')), 'host'),
    index: v.optional(templateSchema('Repository to ingest into (template); must be the token\'s repository on public endpoints.')),
    indexed_fields: v.optional(
      v.array(
        fieldPathSchema('Log field sent in the envelope `fields`; a leading "#" makes the service keep it as an event tag.', {
          empty: 'must not be empty',
          invalid: 'must be a field path (`name`, `tags.env`), optionally after "#" (an event tag on the service)',
          marker: '#',
        }),
      ),
      [],
    ),
    ...metricTagValuesOption,
    source: v.optional(templateSchema('Source of the events (template).')),
    timezone: v.optional(timezoneSchema('Time zone of strftime items in the templates; overrides the global timezone.')),
    compression: compressionSchema(['none', 'gzip', 'zlib'] as const, 'none'),
    batch: batchSchema({ max_bytes: 1_000_000, timeout_secs: 1 }),
    request: requestSchema(LOGSVC_REQUEST_DEFAULTS),
    tls: urlTlsSchema('endpoint'),
  },
  { proxy: true },
);
/** Validated `logsvc_metrics` options. */
export type LogsvcMetricsConfig = v.InferOutput<typeof LogsvcMetricsConfig>;
