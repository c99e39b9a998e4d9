/** gRPC server credentials from a listener's `tls.*`, for the gRPC sources (`opentelemetry`, `vector`). */
import type * as grpc from '@grpc/grpc-js';
import type { TlsOptions } from 'node:tls';
import { lazyModule } from '../../lib/lazy-module.js';

const grpcJs = lazyModule<typeof grpc>('@grpc/grpc-js');

/**
 * Insecure without TLS options, else TLS with the PEM identity (grpc-js takes no PKCS#12); with
 * `requestCert` (a listener's `verify_certificate`) a client must present a certificate that chains
 * to the CA.
 */
export function grpcServerCredentials(tls: TlsOptions | undefined, what: string): grpc.ServerCredentials {
  if (tls === undefined) return grpcJs().ServerCredentials.createInsecure();
  if (tls.cert === undefined || tls.key === undefined) throw new Error(`${what}: a gRPC listener needs a PEM certificate and key (crt_file and key_file); PKCS#12 is not supported`);
  const ca = tls.ca === undefined ? null : Buffer.from(String(tls.ca));
  return grpcJs().ServerCredentials.createSsl(ca, [{ cert_chain: Buffer.from(String(tls.cert)), private_key: Buffer.from(String(tls.key)) }], tls.requestCert === true);
}
