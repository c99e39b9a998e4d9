/** Options of the `http` sink (Vector's `http`). */
import * as v from 'valibot';
import { encodingSchema } from '../../../lib/codecs/encoding.js';
import { FRAMING_METHODS, framingSchema } from '../../../lib/codecs/framing.js';
import { batchSchema } from '../../../lib/config/options/batch.js';
import { pathItem } from '../../../lib/config/options/checks.js';
import { compressionSchema } from '../../../lib/config/options/encoding.js';
import { httpUrlSchema } from '../../../lib/config/options/endpoint.js';
import { sinkObject } from '../../../lib/config/options/envelope.js';
import { requestSchema } from '../../../lib/config/options/request.js';
import { urlTlsSchema } from '../../../lib/config/options/tls.js';
import { routingSchema, singleOrRouting } from '../../shared/routing/index.js';
import { hasAuthorization, httpAuthSchema } from '../../shared/http/auth.js';


/** HTTP methods the sink can send (Vector's `method` option; not in the spec, POST by default). */
export const HTTP_METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'trace'] as const;

const headersSchema = v.record(
  v.pipe(v.string(), v.regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be a valid header name')),
  v.pipe(v.string(), v.check((s) => !/[\r\n]/.test(s), 'header values must not contain line breaks')),
);

/**
 * `retry_strategy` (Vector's http sinks): which answers are retried. `default` is weir's status
 * rule (429 and 5xx except 501); `none` retries nothing, timeouts and connection errors included;
 * `all` retries every answer that is not 2xx; `custom` retries exactly the listed statuses.
 */
export const retryStrategySchema = v.optional(
  v.variant('type', [
    v.strictObject({ type: v.literal('default') }),
    v.strictObject({ type: v.literal('none') }),
    v.strictObject({ type: v.literal('all') }),
    v.strictObject({
      type: v.literal('custom'),
      status_codes: v.pipe(v.array(v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(599))), v.minLength(1, 'must list at least one status code')),
    }),
  ]),
  { type: 'default' },
);
/** A validated `retry_strategy`. */
export type RetryStrategy = v.InferOutput<typeof retryStrategySchema>;

/** Valibot schema of the `http` sink. */
export const HttpSinkConfig = v.pipe(
  sinkObject(
    'http',
    {
      uri: v.optional(httpUrlSchema('Destination URI (or several in `routing.endpoints`).')),
      routing: routingSchema(httpUrlSchema('One destination URI.')),
      method: v.optional(v.picklist(HTTP_METHODS), 'post'),
      auth: v.optional(httpAuthSchema),
      /** Vector's older top-level form of `request.headers`; both apply, `request.headers` wins. */
      headers: v.optional(headersSchema, {}),
      compression: compressionSchema(['none', 'gzip', 'zlib'] as const, 'none'),
      encoding: encodingSchema(['json', 'ndjson', 'text'] as const, {}, 'json'),
      /** How events are joined into a body; unset = per codec (json: `[a,b]`, ndjson: lines, text: lines). */
      framing: v.optional(framingSchema(FRAMING_METHODS, undefined, 'encode'), {}),
      /** Text before the body (json codec; Vector's payload_prefix). */
      payload_prefix: v.optional(v.string(), ''),
      /** Text after the body (json codec; Vector's payload_suffix). */
      payload_suffix: v.optional(v.string(), ''),
      batch: batchSchema({ max_bytes: 10_000_000, timeout_secs: 1 }),
      request: requestSchema(),
      tls: urlTlsSchema('uri'),
      retry_strategy: retryStrategySchema,
    },
    { proxy: true, healthcheckUri: true },
  ),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    const issue = (key: string, message: string) =>
      addIssue({ message, path: [pathItem(c, key)] });
    const one = singleOrRouting('uri', c.uri !== undefined, c.routing !== undefined);
    if (one) return issue(one.key, one.message);
    if (c.routing !== undefined && c.routing.endpoints.some((u) => URL.canParse(u) && /^[^/]*\/\/[^/]*@/.test(u)))
      issue('routing', 'credentials in routing.endpoints are not taken: set auth');
    if (c.uri === undefined || !URL.canParse(c.uri)) {
      if (c.auth && (hasAuthorization(c.headers) || hasAuthorization(c.request.headers))) issue('auth', 'an Authorization header must not be set together with auth');
    } else {
      const url = new URL(c.uri);
      if (c.auth && (url.username || url.password)) issue('uri', 'credentials in the URI and auth must not both be set');
      if ((c.auth || url.username) && (hasAuthorization(c.headers) || hasAuthorization(c.request.headers)))
        issue('auth', 'an Authorization header must not be set together with auth');
    }
    if ((c.payload_prefix || c.payload_suffix) && c.encoding.codec !== 'json') issue('payload_prefix', 'payload_prefix and payload_suffix need encoding.codec = "json"');
  }),
);
export type HttpSinkConfig = v.InferOutput<typeof HttpSinkConfig>;
