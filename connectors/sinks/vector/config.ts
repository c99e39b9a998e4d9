/** Options of the `vector` sink: Vector's `vector` protocol (version 2) over gRPC. */
import * as v from 'valibot';
import { batchSchema } from '../../../lib/config/options/batch.js';
import { pathItem } from '../../../lib/config/options/checks.js';
import { sinkObject } from '../../../lib/config/options/envelope.js';
import { posint } from '../../../lib/config/options/numbers.js';
import { requestSchema } from '../../../lib/config/options/request.js';
import { tlsSchema } from '../../../lib/config/options/tls.js';
import { routingSchema, singleOrRouting } from '../../shared/routing/index.js';
import { versionSchema } from '../../shared/vector/version.js';
import { parseEndpoint } from './endpoint.js';

/**
 * `compression`: `none`, `gzip` or `zstd`, or Vector's older boolean (`true` is gzip). zstd is
 * refused at validation: @grpc/grpc-js compresses messages only with gzip and deflate.
 */
const compressionSchema = v.optional(
  v.pipe(
    v.union([v.boolean(), v.picklist(['none', 'gzip', 'zstd'])], 'must be "none", "gzip", "zstd" or a boolean'),
    v.transform((c) => (c === true ? 'gzip' : c === false ? 'none' : c)),
    v.check((c) => c !== 'zstd', 'zstd is not supported: the gRPC library weir uses (@grpc/grpc-js) compresses messages only with gzip or deflate; use "gzip"'),
    v.description('Message compression: "none" or "gzip" ("zstd" is not available; `true` means gzip).'),
  ),
  'none',
);

/** `keepalive.*`: HTTP/2 PINGs on idle connections, so a dead downstream is noticed before reuse. */
const keepaliveSchema = v.optional(
  v.strictObject({
    interval_secs: v.optional(v.pipe(posint(), v.description('Seconds between keepalive PINGs on an idle connection.')), 60),
    timeout_secs: v.optional(v.pipe(posint(), v.description('Seconds to wait for a PING acknowledgement before the connection counts as dead.')), 20),
  }),
);

/** The `vector` sink options. */
export const VectorSinkConfig = v.pipe(
  sinkObject('vector', {
    version: versionSchema,
    address: v.optional(
      v.pipe(
        v.string(),
        v.description('Downstream address with a port: `host:port`, or `http://host:port` / `https://host:port` (https turns TLS on). Or several in `routing.endpoints`.'),
      ),
    ),
    routing: routingSchema(v.pipe(v.string(), v.description('A downstream address, as `address` takes it.'))),
    compression: compressionSchema,
    batch: batchSchema({ max_events: 1000, timeout_secs: 1 }),
    request: requestSchema(),
    tls: tlsSchema,
    keepalive: keepaliveSchema,
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    const one = singleOrRouting('address', c.address !== undefined, c.routing !== undefined);
    if (one) return addIssue({ message: one.message, path: [pathItem(c, one.key)] });
    if (c.address !== undefined) {
      const e = parseEndpoint(c.address, c.tls?.enabled === true);
      if (typeof e === 'string') addIssue({ message: e, path: [pathItem(c, 'address')] });
    }
    const routing = c.routing;
    routing?.endpoints.forEach((a, i) => {
      const e = parseEndpoint(a, c.tls?.enabled === true);
      if (typeof e === 'string') addIssue({ message: e, path: [pathItem(c, 'routing'), pathItem(routing, 'endpoints'), { type: 'array', origin: 'value', input: routing.endpoints, key: i, value: a }] });
    });
  }),
);
/** Validated `vector` sink options. */
export type VectorSinkConfig = v.InferOutput<typeof VectorSinkConfig>;
