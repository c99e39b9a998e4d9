/** Options of the `cloudw_monitor_metrics` sink (Vector's `aws_cloudwatch_metrics`). */
import * as v from 'valibot';
import { batchSchema } from '../../../lib/config/options/batch.js';
import { pathItem } from '../../../lib/config/options/checks.js';
import { compressionSchema } from '../../../lib/config/options/encoding.js';
import { sinkObject } from '../../../lib/config/options/envelope.js';
import { REQUEST_DEFAULTS, requestSchema } from '../../../lib/config/options/request.js';
import { cloudwConnectionEntries, requireRegionOrEndpoint } from '../../shared/cloudw/options.js';

/** PutMetricData takes at most this many datums per call (the PutMetricData API reference). */
export const MAX_DATUMS_PER_CALL = 1000;

/** A namespace the service takes: 1-255 characters, not starting with `:` nor the reserved `AWS/`. */
export const namespaceSchema = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(255, 'must be at most 255 characters'),
  v.check((s) => !s.startsWith('AWS/') && !s.startsWith(':'), 'must not start with "AWS/" (reserved by the service) or ":"'),
);

/** Valibot schema of the `cloudw_monitor_metrics` sink. */
export const CloudwMonitorMetricsConfig = v.pipe(
  sinkObject(
    'cloudw_monitor_metrics',
    {
      ...cloudwConnectionEntries(),
      default_namespace: v.pipe(namespaceSchema, v.description('Namespace of metrics that have none.')),
      compression: compressionSchema(['gzip', 'none'] as const, 'none'),
      // batched by metric count (Vector's default 20), at most the service's 1,000
      batch: batchSchema({ max_events: 20, timeout_secs: 1 }),
      // Vector's rate limit of 150 requests per second
      request: requestSchema({ ...REQUEST_DEFAULTS, rate_limit_num: 150 }),
    },
    { proxy: true, allowDiskV1: true },
  ),
  requireRegionOrEndpoint(),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    const at = (key: string) => [pathItem(c, 'batch'), pathItem(c.batch, key)] as [ReturnType<typeof pathItem>, ReturnType<typeof pathItem>];
    if (c.batch.max_bytes !== undefined) addIssue({ message: 'not allowed: this sink batches by metric count; use max_events', path: at('max_bytes') });
    if (c.batch.max_events !== undefined && c.batch.max_events > MAX_DATUMS_PER_CALL)
      addIssue({ message: `must be at most ${MAX_DATUMS_PER_CALL} (the service's limit of metrics per PutMetricData call)`, path: at('max_events') });
  }),
);
/** Validated options of the sink. */
export type CloudwMonitorMetricsConfig = v.InferOutput<typeof CloudwMonitorMetricsConfig>;
