/** Options of the `opentelemetry` source: OTLP logs over gRPC and HTTP. */
import * as v from 'valibot';
import { pathItem } from '../../../lib/config/options/checks.js';
import { acknowledgementsSchema } from '../../../lib/config/options/envelope.js';
import { parseSocketAddress } from '../../../lib/net/socket-address.js';
import { listenerTlsSchema } from '../../shared/listener-config.js';

/** One listener: an address with a port, and its own `tls.*`. */
const listenerSchema = (what: string, port: number, grpc: boolean) =>
  v.pipe(
    v.strictObject({
      address: v.pipe(v.string(), v.description(`${what} listen address \`host:port\` (conventionally port ${port}).`)),
      tls: listenerTlsSchema,
    }),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const a = parseSocketAddress(dataset.value.address);
      if (typeof a === 'string') addIssue({ message: a, path: [pathItem(dataset.value, 'address')] });
      const tls = dataset.value.tls;
      if (tls?.client_metadata_key !== undefined)
        addIssue({ message: 'client_metadata_key is not supported by the opentelemetry source', path: [pathItem(dataset.value, 'tls'), pathItem(tls, 'client_metadata_key')] });
      if (grpc && tls?.alpn_protocols !== undefined)
        addIssue({ message: 'alpn_protocols cannot be set on the gRPC listener: gRPC always negotiates h2', path: [pathItem(dataset.value, 'tls'), pathItem(tls, 'alpn_protocols')] });
    }),
  );

/** The `opentelemetry` source options; both listeners are required. */
export const OpentelemetrySourceConfig = v.strictObject({
  type: v.literal('opentelemetry'),
  grpc: v.pipe(listenerSchema('OTLP/gRPC', 4317, true), v.description('The OTLP/gRPC listener.')),
  http: v.pipe(listenerSchema('OTLP/HTTP', 4318, false), v.description('The OTLP/HTTP listener (`POST /v1/logs`, protobuf or JSON).')),
  acknowledgements: acknowledgementsSchema,
});
/** Validated `opentelemetry` source options. */
export type OpentelemetrySourceConfig = v.InferOutput<typeof OpentelemetrySourceConfig>;
