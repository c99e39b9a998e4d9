/**
 * One downstream endpoint of the `vector` sink: a grpc-js client on one HTTP/2 channel, calling
 * `vector.Vector/PushEvents` with the request bytes as built (no re-encoding) and
 * `vector.Vector/HealthCheck`. It makes one attempt per call; the request skeleton retries.
 */
import type * as grpc from '@grpc/grpc-js';
import { lazyModule } from '../../../lib/lazy-module.js';
import { tlsConnectOptions } from '../../../lib/net/tls.js';
import { vectorProto } from '../../shared/vector/proto.js';
import type { VectorSinkConfig } from './config.js';
import type { VectorEndpoint } from './endpoint.js';

const grpcJs = lazyModule<typeof grpc>('@grpc/grpc-js');
const identity = (b: Buffer) => b;

/** grpc-js' number for gzip message compression (its `CompressionAlgorithms`). */
const GZIP = 2;

/** Codes Vector's sink does not retry: the request itself is wrong, or it was refused for good. */
const FINAL = new Set<number>([5, 3, 6, 7, 11, 12, 16, 15]); // NOT_FOUND INVALID_ARGUMENT ALREADY_EXISTS PERMISSION_DENIED OUT_OF_RANGE UNIMPLEMENTED UNAUTHENTICATED DATA_LOSS

/** Whether a failed call is worth another attempt (Vector's retry logic for this sink). */
export function isRetriableGrpcError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code !== 'number' || !FINAL.has(code);
}

/** A client of one endpoint. */
export interface VectorClient {
  readonly endpoint: VectorEndpoint;
  /** One PushEvents call; resolves on OK, rejects with the grpc-js ServiceError. */
  push(body: Buffer, signal: AbortSignal): Promise<void>;
  /** One HealthCheck call; resolves with the serving status (0 = SERVING). */
  health(timeoutMs: number): Promise<number>;
  close(): void;
}

function credentials(config: VectorSinkConfig, endpoint: VectorEndpoint): grpc.ChannelCredentials {
  const g = grpcJs();
  if (!endpoint.tls) return g.credentials.createInsecure();
  const opts = tlsConnectOptions(config.tls);
  const verify: grpc.VerifyOptions = {};
  if (opts.checkServerIdentity !== undefined) verify.checkServerIdentity = opts.checkServerIdentity;
  if (opts.rejectUnauthorized === false) verify.rejectUnauthorized = false;
  return opts.secureContext === undefined ? g.credentials.createSsl(null, null, null, verify) : g.credentials.createFromSecureContext(opts.secureContext, verify);
}

/** Opens (lazily, on the first call) a channel to `endpoint` with the sink's TLS, compression and keepalive. */
export function createVectorClient(config: VectorSinkConfig, endpoint: VectorEndpoint): VectorClient {
  const proto = vectorProto();
  const options: grpc.ChannelOptions = { 'grpc.max_send_message_length': -1, 'grpc.max_receive_message_length': -1 };
  if (config.compression === 'gzip') options['grpc.default_compression_algorithm'] = GZIP;
  if (config.keepalive !== undefined) {
    options['grpc.keepalive_time_ms'] = config.keepalive.interval_secs * 1000;
    options['grpc.keepalive_timeout_ms'] = config.keepalive.timeout_secs * 1000;
    options['grpc.keepalive_permit_without_calls'] = 1;
  }
  if (config.tls?.server_name !== undefined) options['grpc.ssl_target_name_override'] = config.tls.server_name;
  const client = new (grpcJs().Client)(endpoint.target, credentials(config, endpoint), options);
  // request.headers go as gRPC metadata on every call
  const headers = Object.entries(config.request.headers);
  const metadata = () => {
    const m = new (grpcJs().Metadata)();
    for (const [k, val] of headers) m.set(k.toLowerCase(), val);
    return m;
  };
  const unary = (path: string, body: Buffer, callOptions: grpc.CallOptions, signal?: AbortSignal) =>
    new Promise<Buffer>((resolve, reject) => {
      const call = client.makeUnaryRequest(path, identity, identity, body, metadata(), callOptions, (err, res) => (err ? reject(err) : resolve(res ?? Buffer.alloc(0))));
      if (signal === undefined) return;
      if (signal.aborted) call.cancel();
      else signal.addEventListener('abort', () => call.cancel(), { once: true });
    });
  return {
    endpoint,
    push: async (body, signal) => {
      await unary(proto.pushEventsPath, body, {}, signal);
    },
    health: async (timeoutMs) => {
      const res = await unary(proto.healthCheckPath, Buffer.alloc(0), { deadline: Date.now() + timeoutMs });
      return (proto.healthCheckResponse.decode(res) as unknown as { status: number }).status;
    },
    close: () => client.close(),
  };
}
