/** Options of the `http` sink (spec 01 §2.1, §2.3 `http`; reference sinks §1). */
import * as v from 'valibot';
import { encodingSchema } from '../../../lib/codecs/encoding.js';
import { batchSchema, compressionSchema, pathItem, requestSchema, sinkObject, tlsSchema } from '../../../lib/config/shared.js';
import { hasAuthorization, httpAuthSchema } from '../../shared/http/auth.js';


/** HTTP methods the sink can send (Vector's `method` option; not in the spec, POST by default). */
export const HTTP_METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'trace'] as const;

const headersSchema = v.record(
  v.pipe(v.string(), v.regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be a valid header name')),
  v.pipe(v.string(), v.check((s) => !/[\r\n]/.test(s), 'header values must not contain line breaks')),
);

/** Valibot schema of the `http` sink. */
export const HttpSinkConfig = v.pipe(
  sinkObject(
    'http',
    {
      uri: v.pipe(v.string(), v.url('must be a URL'), v.check((u) => /^https?:/i.test(u), 'must be an http or https URL'), v.description('Destination URI.')),
      method: v.optional(v.picklist(HTTP_METHODS), 'post'),
      auth: v.optional(httpAuthSchema),
      /** Vector's older top-level form of `request.headers`; both apply, `request.headers` wins. */
      headers: v.optional(headersSchema, {}),
      compression: compressionSchema(['none', 'gzip'] as const, 'none'),
      encoding: encodingSchema(['json', 'ndjson', 'text'] as const, {}, 'json'),
      /** Text before the body (json codec; Vector's payload_prefix). */
      payload_prefix: v.optional(v.string(), ''),
      /** Text after the body (json codec; Vector's payload_suffix). */
      payload_suffix: v.optional(v.string(), ''),
      batch: batchSchema({ max_bytes: 10_000_000, timeout_secs: 1 }),
      request: requestSchema(),
      tls: tlsSchema,
    },
    { proxy: true, healthcheckUri: true },
  ),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed || !URL.canParse(dataset.value.uri)) return; // a bad uri is reported by its own check
    const c = dataset.value;
    const issue = (key: string, message: string) =>
      addIssue({ message, path: [pathItem(c, key)] });
    const url = new URL(c.uri);
    if (c.auth && (url.username || url.password)) issue('uri', 'credentials in the URI and auth must not both be set');
    if ((c.auth || url.username) && (hasAuthorization(c.headers) || hasAuthorization(c.request.headers)))
      issue('auth', 'an Authorization header must not be set together with auth');
    if (c.tls?.enabled !== undefined) issue('tls', 'tls.enabled does not apply to this sink: the uri scheme (https) decides');
    if ((c.payload_prefix || c.payload_suffix) && c.encoding.codec !== 'json') issue('payload_prefix', 'payload_prefix and payload_suffix need encoding.codec = "json"');
  }),
);
export type HttpSinkConfig = v.InferOutput<typeof HttpSinkConfig>;
