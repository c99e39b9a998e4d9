/** Options of the `vector` source: Vector's `vector` protocol (version 2) over gRPC. */
import * as v from 'valibot';
import { pathItem } from '../../../lib/config/options/checks.js';
import { acknowledgementsSchema } from '../../../lib/config/options/envelope.js';
import { uint } from '../../../lib/config/options/numbers.js';
import { parseSocketAddress } from '../../../lib/net/socket-address.js';
import { listenerTlsSchema } from '../../shared/listener-config.js';
import { versionSchema } from '../../shared/vector/version.js';

/** `keepalive.*` of the gRPC listener (Vector's `GrpcKeepaliveConfig`). */
const keepaliveSchema = v.optional(
  v.strictObject({
    max_connection_age_secs: v.optional(v.pipe(uint(), v.description('Seconds a connection may live before the server asks the client to reconnect (HTTP/2 GOAWAY); unset: no limit.'))),
    max_connection_age_grace_secs: v.optional(
      v.pipe(uint(), v.description('Seconds past max_connection_age_secs that calls in flight get to finish before the connection is closed.')),
    ),
  }),
  {},
);

/** The `vector` source options. */
export const VectorSourceConfig = v.pipe(
  v.strictObject({
    type: v.literal('vector'),
    version: versionSchema,
    address: v.pipe(v.string(), v.description('Listen address `host:port` (Vector conventionally uses port 6000).')),
    tls: listenerTlsSchema,
    keepalive: keepaliveSchema,
    acknowledgements: acknowledgementsSchema,
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    const a = parseSocketAddress(c.address);
    if (typeof a === 'string') addIssue({ message: a, path: [pathItem(c, 'address')] });
    const tls = c.tls;
    if (tls?.client_metadata_key !== undefined)
      addIssue({ message: 'client_metadata_key is not supported by the vector source', path: [pathItem(c, 'tls'), pathItem(tls, 'client_metadata_key')] });
    if (tls?.alpn_protocols !== undefined)
      addIssue({ message: 'alpn_protocols cannot be set on a gRPC listener: gRPC always negotiates h2', path: [pathItem(c, 'tls'), pathItem(tls, 'alpn_protocols')] });
  }),
);
/** Validated `vector` source options. */
export type VectorSourceConfig = v.InferOutput<typeof VectorSourceConfig>;
