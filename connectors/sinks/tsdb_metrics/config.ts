/** Options of the `tsdb_metrics` sink (Vector's `influxdb_metrics`). */
import * as v from 'valibot';
import { batchSchema } from '../../../lib/config/options/batch.js';
import { pathItem } from '../../../lib/config/options/checks.js';
import { encodingCommon } from '../../../lib/config/options/encoding.js';
import { httpUrlSchema } from '../../../lib/config/options/endpoint.js';
import { sinkObject } from '../../../lib/config/options/envelope.js';
import { requestSchema } from '../../../lib/config/options/request.js';
import { urlTlsSchema } from '../../../lib/config/options/tls.js';

/** Options of generation 1 (the `/write` API with a database). */
export const GENERATION_1 = ['database', 'consistency', 'retention_policy_name', 'username', 'password'] as const;
/** Options of generation 2 (the `/api/v2/write` API with an organization and bucket). */
export const GENERATION_2 = ['org', 'bucket', 'token'] as const;

/** Vector's default quantiles of summary distributions (not in the spec). */
export const DEFAULT_QUANTILES = [0.5, 0.75, 0.9, 0.95, 0.99];

const text = () => v.pipe(v.string(), v.minLength(1, 'must not be empty'));

/**
 * `encoding`: the common options as far as line protocol has them. `only_fields` and
 * `except_fields` name line fields (`value`, `count`, `quantile_0.95` …) or tags (`tags.host`);
 * `timestamp_format` picks the timestamp unit (rfc3339, the default, and unix_ns write
 * nanoseconds; unix, unix_ms, unix_us seconds, milliseconds, microseconds).
 */
const encoding = v.optional(
  v.pipe(
    v.strictObject({
      only_fields: v.optional(v.array(text())),
      except_fields: v.optional(v.array(text())),
      timestamp_format: encodingCommon.timestamp_format,
    }),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const e = dataset.value;
      if (e.timestamp_format === 'unix_float')
        addIssue({ message: 'line protocol timestamps are integers: use one of "rfc3339" (nanoseconds), "unix", "unix_ms", "unix_us", "unix_ns"', path: [pathItem(e, 'timestamp_format')] });
      const both = (e.except_fields ?? []).filter((f) => e.only_fields?.includes(f));
      if (both.length > 0) addIssue({ message: `only_fields and except_fields must not name the same field (${both.join(', ')})`, path: [pathItem(e, 'except_fields')] });
    }),
  ),
  {},
);

const list = (keys: readonly string[]) => keys.join(', ');

/** Valibot schema of the `tsdb_metrics` sink. */
export const TsdbMetricsConfig = v.pipe(
  sinkObject(
    'tsdb_metrics',
    {
      endpoint: httpUrlSchema('Base URL of the time-series database.'),
      database: v.optional(text()),
      consistency: v.optional(v.picklist(['any', 'one', 'quorum', 'all'])),
      retention_policy_name: v.optional(text()),
      username: v.optional(v.string()),
      password: v.optional(v.string()),
      org: v.optional(text()),
      bucket: v.optional(text()),
      token: v.optional(text()),
      default_namespace: v.optional(text()),
      tags: v.optional(v.record(v.string(), v.string()), {}),
      quantiles: v.optional(
        v.array(v.pipe(v.number(), v.minValue(0, 'quantiles must be in [0, 1]'), v.maxValue(1, 'quantiles must be in [0, 1]'))),
        DEFAULT_QUANTILES,
      ),
      encoding,
      // batched by event count only, as in Vector
      batch: batchSchema({ max_events: 20, timeout_secs: 1 }),
      request: requestSchema(),
      tls: urlTlsSchema('endpoint'),
    },
    { proxy: true },
  ),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    const issue = (key: string, message: string) => addIssue({ message, path: [pathItem(c, key)] });
    const v1 = GENERATION_1.filter((k) => c[k] !== undefined);
    const v2 = GENERATION_2.filter((k) => c[k] !== undefined);
    if (c.database !== undefined) {
      for (const k of v2) issue(k, `a generation 2 option; with database set (generation 1) the allowed options are ${list(GENERATION_1)}`);
    } else if (v2.length > 0) {
      for (const k of v1) issue(k, `a generation 1 option; with ${list(v2)} set (generation 2) the allowed options are ${list(GENERATION_2)}`);
      for (const k of GENERATION_2) if (c[k] === undefined) issue(k, `missing required option: generation 2 needs all of ${list(GENERATION_2)}`);
    } else {
      issue('database', `missing required option: set database (generation 1: ${list(GENERATION_1)}) or org, bucket and token (generation 2)`);
    }
    if (c.batch.max_bytes !== undefined)
      addIssue({ message: 'not allowed: this sink batches by event count; use max_events', path: [pathItem(c, 'batch'), pathItem(c.batch, 'max_bytes')] });
  }),
);
export type TsdbMetricsConfig = v.InferOutput<typeof TsdbMetricsConfig>;

/** The generation a validated config writes to. */
export const generationOf = (c: Pick<TsdbMetricsConfig, 'database'>): 1 | 2 => (c.database !== undefined ? 1 : 2);
