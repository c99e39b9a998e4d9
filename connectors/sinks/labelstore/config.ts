/** Options of the `labelstore` sink (Vector's `loki`). */
import * as v from 'valibot';
import { avroOptionsSchema } from '../../../lib/codecs/avro.js';
import { metricTagValuesOption } from '../../../lib/codecs/encoding.js';
import { batchSchema } from '../../../lib/config/options/batch.js';
import { pathItem } from '../../../lib/config/options/checks.js';
import { compressionSchema, encodingCommon } from '../../../lib/config/options/encoding.js';
import { httpUrlSchema } from '../../../lib/config/options/endpoint.js';
import { sinkObject } from '../../../lib/config/options/envelope.js';
import { REQUEST_DEFAULTS, requestSchema } from '../../../lib/config/options/request.js';
import { templateProblem, templateSchema } from '../../../lib/config/options/template.js';
import { urlTlsSchema } from '../../../lib/config/options/tls.js';
import { httpAuthSchema } from '../../shared/http/auth.js';

/** Codecs of the line: each event is encoded alone into one log line. */
export const LABELSTORE_CODECS = ['avro', 'gelf', 'json', 'logfmt', 'native', 'native_json', 'raw_message', 'text'] as const;

/** What to do with an event older than the newest one sent on its stream. */
export const OUT_OF_ORDER_ACTIONS = ['drop', 'rewrite_timestamp', 'accept'] as const;

/**
 * The path the store listens on (Loki's push path), not a neutral token such as
 * `/labelstore/api/v1/push`; weir uses the path a real store serves, so the default works.
 */
export const DEFAULT_PUSH_PATH = '/loki/api/v1/push';

/** A label name as Prometheus defines it. */
export const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** A static label key: a label name, or a name prefix (possibly empty) ending in `*` that expands an object. */
const LABEL_KEY = /^(?:[a-zA-Z_][a-zA-Z0-9_]*)?\*?$/;
const LABEL_KEY_RULE = 'a label name must match [a-zA-Z_][a-zA-Z0-9_]* (Prometheus label names), optionally ending in "*" to expand an object field into several labels; templates such as "{{ field }}" are allowed';

/** `labels`: label name (or template) to value template; each key checked on its own path. */
const labelsSchema = v.pipe(
  v.record(v.string(), v.string()),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const labels = dataset.value;
    for (const [key, value] of Object.entries(labels)) {
      const at = [pathItem(labels, key)] as [ReturnType<typeof pathItem>];
      const keyError = templateProblem(key);
      if (keyError) addIssue({ message: `label name: ${keyError}`, path: at });
      else if (!key.includes('{{') && !LABEL_KEY.test(key)) addIssue({ message: `invalid label name ${JSON.stringify(key)}: ${LABEL_KEY_RULE}`, path: at });
      else if (key === '') addIssue({ message: `empty label name: ${LABEL_KEY_RULE}`, path: at });
      const valueError = templateProblem(value);
      if (valueError) addIssue({ message: valueError, path: at });
    }
  }),
);

/** `encoding`: the line codec (required), the common field options, and `avro.schema` for avro. */
const encodingOptions = v.pipe(
  v.strictObject({
    codec: v.picklist(LABELSTORE_CODECS),
    ...encodingCommon,
    ...metricTagValuesOption,
    avro: v.optional(avroOptionsSchema),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const e = dataset.value;
    if (e.codec === 'avro' && e.avro === undefined)
      addIssue({ message: 'missing required option: codec "avro" needs avro.schema, the JSON of an Avro record schema', path: [pathItem(e, 'avro')] });
    if (e.codec !== 'avro' && e.avro !== undefined) addIssue({ message: `applies only when codec is "avro" (codec is "${e.codec}")`, path: [pathItem(e, 'avro')] });
    const both = e.only_fields && e.except_fields ? e.except_fields.filter((f) => e.only_fields!.includes(f)) : [];
    if (both.length > 0) addIssue({ message: `only_fields and except_fields must not name the same field (${both.join(', ')})`, path: [pathItem(e, 'except_fields')] });
  }),
);

/** Valibot schema of the `labelstore` sink. */
export const LabelstoreConfig = v.pipe(
  sinkObject(
    'labelstore',
    {
      endpoint: httpUrlSchema('Base URL of the store; `path` is appended.'),
      path: v.optional(v.string(), DEFAULT_PUSH_PATH),
      labels: v.optional(labelsSchema, {}),
      tenant_id: v.optional(templateSchema('Tenant of each event, sent as `X-Scope-OrgID` (a template); unset: none.')),
      out_of_order_action: v.optional(v.picklist(OUT_OF_ORDER_ACTIONS), 'drop'),
      remove_label_fields: v.optional(v.boolean(), false),
      remove_timestamp: v.optional(v.boolean(), true),
      compression: compressionSchema(['snappy', 'gzip', 'zlib', 'none'] as const, 'snappy'),
      encoding: encodingOptions,
      auth: v.optional(httpAuthSchema),
      batch: batchSchema({ max_events: 100_000, max_bytes: 1_000_000, timeout_secs: 1 }),
      // this sink's request defaults; concurrency `none` = fixed 1
      request: requestSchema({ ...REQUEST_DEFAULTS, concurrency: 'none', retry_attempts: 9.223372036854776e18, ewma_alpha: 0.4, rtt_deviation_scale: 2.5 }),
      tls: urlTlsSchema('endpoint'),
    },
    { proxy: true },
  ),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    // as in Vector: a stream without labels is refused by the store, so at least one is required
    if (Object.keys(c.labels).length === 0)
      addIssue({ message: 'at least one label is required, e.g. labels.app = "{{ app }}"; keys are label names or templates, values are templates', path: [pathItem(c, 'labels')] });
    // the password is required with basic auth (the shared schema defaults it to '')
    if (c.auth?.strategy === 'basic' && c.auth.password === '')
      addIssue({ message: 'missing required option: strategy "basic" needs a password', path: [pathItem(c, 'auth'), pathItem(c.auth, 'password')] });
    if (!URL.canParse(c.endpoint)) return; // a bad endpoint is reported by its own check
    const url = new URL(c.endpoint);
    if (c.auth && (url.username || url.password)) addIssue({ message: 'credentials in the endpoint URL and auth must not both be set', path: [pathItem(c, 'endpoint')] });
  }),
);
export type LabelstoreConfig = v.InferOutput<typeof LabelstoreConfig>;
