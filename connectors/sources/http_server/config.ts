/** Options of the `http_server` source, named and defaulted as on Vector's `http_server` source page. */
import * as v from 'valibot';
import { DECODING_CODECS, FRAMING_METHODS, type DecodingConfig, type FramingConfig, defaultDecodingFraming, framingSchema } from '../../../lib/codecs/index.js';
import { pathItem } from '../../../lib/config/options/checks.js';
import { acknowledgementsSchema } from '../../../lib/config/options/envelope.js';
import { parseSocketAddress } from '../../../lib/net/socket-address.js';
import { parsePath } from '../../../lib/path.js';
import { listenerBasicAuthSchema, listenerTlsSchema } from '../../shared/listener-config.js';
import { compileParamPattern } from './params.js';

/** HTTP methods the source can accept, upper case as Vector spells them. */
export const HTTP_METHODS = ['HEAD', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Values of the deprecated `encoding` option (Vector's older shorthand for framing + decoding). */
export const LEGACY_ENCODINGS = ['text', 'ndjson', 'json', 'binary'] as const;

/** Vector's default `keepalive.max_connection_age_secs`: five minutes. */
export const DEFAULT_MAX_CONNECTION_AGE_SECS = 300;

const fieldKey = (what: string) =>
  v.pipe(
    v.string(),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed || dataset.value === '') return;
      try {
        parsePath(dataset.value);
      } catch (err) {
        addIssue({ message: `not a field path: ${(err as Error).message}` });
      }
    }),
    v.description(what),
  );

const patternList = (what: string) =>
  v.optional(
    v.pipe(
      v.array(
        v.pipe(
          v.string(),
          v.rawCheck(({ dataset, addIssue }) => {
            if (!dataset.typed) return;
            const r = compileParamPattern(dataset.value);
            if (typeof r === 'string') addIssue({ message: r });
          }),
        ),
      ),
      v.description(what),
    ),
    [],
  );

/** The `http_server` source options. */
export const HttpServerSourceConfig = v.pipe(
  v.strictObject({
    type: v.literal('http_server'),
    address: v.pipe(v.string(), v.description('Listen address `host:port`; it must include a port.')),
    path: v.optional(v.pipe(v.string(), v.description('URL path on which requests are accepted.')), '/'),
    strict_path: v.optional(
      v.pipe(v.boolean(), v.description('Accept only the exact `path`; false accepts every path below it (by segments; `path = ""` accepts any path).')),
      true,
    ),
    path_key: v.optional(fieldKey('Field that gets the request path, where the event has none; empty: no field.'), 'path'),
    host_key: v.optional(fieldKey('Field that gets the peer IP address (overwriting); unset or empty: no field.'), ''),
    method: v.optional(v.pipe(v.picklist(HTTP_METHODS), v.description('The HTTP method requests must use; other methods get 405.')), 'POST'),
    response_code: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(999), v.description('Status code of a successful response.')),
      200,
    ),
    headers: patternList('Request headers added to each log event (`*` and `?` wildcards, matched case-insensitively); a field of the same name in the event wins.'),
    query_parameters: patternList('Query parameters added to each log event (`*` and `?` wildcards); they overwrite fields of the same name.'),
    auth: listenerBasicAuthSchema,
    encoding: v.optional(
      v.pipe(
        v.picklist(LEGACY_ENCODINGS),
        v.description('Deprecated: text (lines as messages), ndjson (a JSON object per line), json (one JSON body), binary (the body as one message). Use framing and decoding.'),
      ),
    ),
    framing: v.optional(framingSchema(FRAMING_METHODS)),
    decoding: v.optional(
      v.pipe(
        v.strictObject({ codec: v.optional(v.picklist(DECODING_CODECS), 'bytes') }),
        v.description('How each frame becomes events: bytes (default), json, syslog, native_json or native.'),
      ),
    ),
    keepalive: v.optional(
      v.strictObject({
        max_connection_age_secs: v.optional(
          v.pipe(v.number(), v.integer(), v.minValue(0), v.description('Seconds after which a connection is closed by answering with `Connection: close`.')),
          DEFAULT_MAX_CONNECTION_AGE_SECS,
        ),
        max_connection_age_jitter_factor: v.optional(
          v.pipe(v.number(), v.minValue(0), v.maxValue(1), v.description('Random spread of the age limit: 0.1 gives 90% to 110% of it.')),
          0.1,
        ),
      }),
      {},
    ),
    tls: listenerTlsSchema,
    acknowledgements: acknowledgementsSchema,
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    const a = parseSocketAddress(c.address);
    if (typeof a === 'string') addIssue({ message: a, path: [pathItem(c, 'address')] });
    if (c.encoding !== undefined && (c.framing !== undefined || c.decoding !== undefined))
      addIssue({ message: 'encoding is deprecated and cannot be combined with framing or decoding; configure framing and decoding instead', path: [pathItem(c, 'encoding')] });
    if (c.tls?.client_metadata_key !== undefined)
      addIssue({ message: 'client_metadata_key is not supported by the http_server source', path: [pathItem(c, 'tls'), pathItem(c.tls, 'client_metadata_key')] });
  }),
);
/** Validated `http_server` source options. */
export type HttpServerSourceConfig = v.InferOutput<typeof HttpServerSourceConfig>;

/** Framing and decoding in effect: the deprecated `encoding` as Vector mapped it, else the groups with Vector's per-codec default framing. */
export function codecsOf(config: HttpServerSourceConfig): { framing: FramingConfig; decoding: DecodingConfig } {
  switch (config.encoding) {
    case 'text':
      return { framing: { method: 'newline_delimited' }, decoding: { codec: 'bytes' } };
    case 'ndjson':
      return { framing: { method: 'newline_delimited' }, decoding: { codec: 'json' } };
    case 'json':
      return { framing: { method: 'bytes' }, decoding: { codec: 'json' } };
    case 'binary':
      return { framing: { method: 'bytes' }, decoding: { codec: 'bytes' } };
    case undefined: {
      const decoding: DecodingConfig = config.decoding ?? { codec: 'bytes' };
      const framing = config.framing?.method !== undefined ? config.framing : { ...config.framing, ...defaultDecodingFraming(decoding.codec) };
      return { framing, decoding };
    }
  }
}
