/** Options of the `cloudw_monitor_logs` sink (Vector's `aws_cloudwatch_logs`). */
import * as v from 'valibot';
import { encodingSchema } from '../../../lib/codecs/encoding.js';
import { batchSchema } from '../../../lib/config/options/batch.js';
import { pathItem } from '../../../lib/config/options/checks.js';
import { compressionSchema } from '../../../lib/config/options/encoding.js';
import { sinkObject } from '../../../lib/config/options/envelope.js';
import { requestSchema } from '../../../lib/config/options/request.js';
import { templateSchema } from '../../../lib/config/options/template.js';
import { cloudwConnectionEntries, requireRegionOrEndpoint } from '../../shared/cloudw/options.js';

/** Events per PutLogEvents call the service takes (the PutLogEvents API reference). */
export const MAX_EVENTS_PER_CALL = 10_000;
/** Bytes per call the service takes, each event counted as its message bytes + {@link EVENT_OVERHEAD_BYTES}. */
export const MAX_BYTES_PER_CALL = 1_048_576;
/** What the service adds to each event's message bytes when it measures a call. */
export const EVENT_OVERHEAD_BYTES = 26;

/** Retention periods the service takes for a log group (days). */
export const RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653] as const;

/** `retention` (Vector's option): a retention policy set on the groups the sink creates. */
const retentionSchema = v.optional(
  v.pipe(
    v.strictObject({
      enabled: v.optional(v.pipe(v.boolean(), v.description('Set a retention policy on log groups the sink creates.')), false),
      days: v.optional(
        v.pipe(
          v.number(),
          v.check((d) => (RETENTION_DAYS as readonly number[]).includes(d), `must be one of ${RETENTION_DAYS.join(', ')}`),
          v.description('Days the service keeps the events of a created group.'),
        ),
      ),
    }),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const r = dataset.value;
      if (r.enabled && r.days === undefined) addIssue({ message: 'missing required option: retention.enabled needs days', path: [pathItem(r, 'days')] });
    }),
  ),
  { enabled: false },
);

/** Valibot schema of the `cloudw_monitor_logs` sink. */
export const CloudwMonitorLogsConfig = v.pipe(
  sinkObject(
    'cloudw_monitor_logs',
    {
      ...cloudwConnectionEntries(),
      group_name: templateSchema('Log group to write to; a template ("{{ field }}", strftime items).', { nonEmpty: true }),
      stream_name: templateSchema('Log stream inside the group; a template, e.g. "{{ host }}".', { nonEmpty: true }),
      create_missing_group: v.optional(v.pipe(v.boolean(), v.description('Create a missing log group, then its first stream.')), true),
      create_missing_stream: v.optional(v.pipe(v.boolean(), v.description('Create a missing log stream.')), true),
      // Vector's options for the groups the sink creates (not in the spec)
      retention: retentionSchema,
      kms_key: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(256, 'must be at most 256 characters'), v.description('ARN of the key that encrypts the data of groups the sink creates.'))),
      tags: v.optional(
        v.pipe(
          v.record(v.pipe(v.string(), v.minLength(1, 'a tag key must not be empty'), v.maxLength(128, 'a tag key has at most 128 characters')), v.pipe(v.string(), v.maxLength(256, 'a tag value has at most 256 characters'))),
          v.check((t) => Object.keys(t).length <= 50, 'at most 50 tags'),
          v.description('Tags of the groups the sink creates.'),
        ),
      ),
      encoding: v.optional(encodingSchema(['json', 'ndjson', 'text'] as const, {}, 'json'), { codec: 'json' }),
      compression: compressionSchema(['gzip', 'none'] as const, 'none'),
      // the service's own limits are the defaults and the maximum
      batch: batchSchema({ max_events: MAX_EVENTS_PER_CALL, max_bytes: MAX_BYTES_PER_CALL, timeout_secs: 1 }),
      request: requestSchema(),
    },
    { proxy: true },
  ),
  requireRegionOrEndpoint(),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    const at = (key: string) => [pathItem(c, 'batch'), pathItem(c.batch, key)] as [ReturnType<typeof pathItem>, ReturnType<typeof pathItem>];
    if (c.batch.max_events !== undefined && c.batch.max_events > MAX_EVENTS_PER_CALL)
      addIssue({ message: `must be at most ${MAX_EVENTS_PER_CALL} (the service's limit of events per PutLogEvents call)`, path: at('max_events') });
    if (c.batch.max_bytes !== undefined && c.batch.max_bytes > MAX_BYTES_PER_CALL)
      addIssue({ message: `must be at most ${MAX_BYTES_PER_CALL} (the service's limit of bytes per PutLogEvents call)`, path: at('max_bytes') });
  }),
);
/** Validated options of the sink. */
export type CloudwMonitorLogsConfig = v.InferOutput<typeof CloudwMonitorLogsConfig>;
