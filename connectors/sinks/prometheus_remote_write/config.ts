/** Options of the `prometheus_remote_write` sink (names and defaults from Vector's). */
import * as v from 'valibot';
import { batchEntries } from '../../../lib/config/options/batch.js';
import { pathItem } from '../../../lib/config/options/checks.js';
import { httpUrlSchema } from '../../../lib/config/options/endpoint.js';
import { sinkObject } from '../../../lib/config/options/envelope.js';
import { requestSchema } from '../../../lib/config/options/request.js';
import { templateSchema } from '../../../lib/config/options/template.js';
import { urlTlsSchema } from '../../../lib/config/options/tls.js';
import { cloudwAuthSchema } from '../../shared/cloudw/options.js';
import { bucketsSchema, defaultNamespaceSchema, quantilesSchema } from '../../shared/prometheus/options.js';

/** `batch.*`: Vector's remote-write defaults (1,000 events, 1 s) and `aggregate`. */
const batch = v.optional(
  v.strictObject({
    ...batchEntries({ max_events: 1000, timeout_secs: 1 }),
    aggregate: v.optional(v.pipe(v.boolean(), v.description('Collapse the metrics of one series within a batch to the latest value.')), true),
  }),
  {},
);

/** The `prometheus_remote_write` sink options. */
export const PrometheusRemoteWriteSinkConfig = v.pipe(
  sinkObject(
    'prometheus_remote_write',
    {
      endpoint: httpUrlSchema('Remote-write URL, with its path (e.g. `http://prometheus:9090/api/v1/write`).'),
      default_namespace: defaultNamespaceSchema,
      buckets: bucketsSchema,
      quantiles: quantilesSchema,
      batch,
      request: requestSchema(),
      tenant_id: v.optional(templateSchema('Value of the `X-Scope-OrgID` header (a template); metrics are batched per tenant.')),
      expire_metrics_secs: v.optional(
        v.pipe(v.number(), v.gtValue(0, 'must be greater than 0'), v.description('Seconds an incremental series\' running total is kept without updates; unset: kept for as long as the sink runs.')),
      ),
      compression: v.optional(v.pipe(v.picklist(['snappy', 'gzip', 'zstd']), v.description('Body compression; Prometheus reads snappy only.')), 'snappy'),
      auth: v.optional(
        v.pipe(
          v.variant('strategy', [
            v.strictObject({ strategy: v.literal('basic'), user: v.string(), password: v.string() }),
            v.strictObject({ strategy: v.literal('bearer'), token: v.pipe(v.string(), v.minLength(1, 'must not be empty')) }),
            v.pipe(
              v.looseObject({ strategy: v.literal('aws') }),
              v.transform(({ strategy: _strategy, ...rest }) => rest),
              v.nonOptional(cloudwAuthSchema),
              v.transform((credentials) => ({ strategy: 'aws' as const, credentials })),
            ),
          ]),
          v.description('Credentials: `basic` (user, password), `bearer` (token), or `aws` (SigV4 signing for service `aps`; the keys of the cloud credential chain, with `aws.region`).'),
        ),
      ),
      aws: v.optional(
        v.strictObject({ region: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description('Region the requests are signed for (with `auth.strategy = "aws"`).')) }),
      ),
      tls: urlTlsSchema('endpoint'),
    },
    { proxy: true, healthcheckUri: true },
  ),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    if (c.compression === 'zstd') addIssue({ message: 'zstd compression is not available in this build (Node 20 has no zstd); use snappy or gzip', path: [pathItem(c, 'compression')] });
    if (c.auth?.strategy === 'aws' && c.aws === undefined) addIssue({ message: 'aws.region is required with auth.strategy = "aws"', path: [pathItem(c, 'auth')] });
    if (c.auth !== undefined && Object.keys(c.request.headers).some((h) => h.toLowerCase() === 'authorization'))
      addIssue({ message: 'an Authorization header cannot be set beside auth', path: [pathItem(c, 'request')] });
  }),
);
/** Validated `prometheus_remote_write` sink options. */
export type PrometheusRemoteWriteSinkConfig = v.InferOutput<typeof PrometheusRemoteWriteSinkConfig>;
