/**
 * OTLP/gRPC: `LogsService/Export` on @grpc/grpc-js. Bodies stay raw Buffers through grpc-js
 * (which handles gzip message compression) and are decoded here, so a bad message is counted and
 * answered INVALID_ARGUMENT. Only the logs service is registered: grpc-js answers calls to the
 * trace and metrics services UNIMPLEMENTED. While the output is full the call is held; past the
 * hold timeout it is refused UNAVAILABLE, which OTLP clients retry; failed delivery is INTERNAL
 * (errored) or DATA_LOSS (rejected), as Vector answers.
 */
import type * as grpc from '@grpc/grpc-js';
import type { TlsOptions } from 'node:tls';
import type { OtlpEvents } from './events.js';
import type { Ingest, Outcome } from './ingest.js';
import { type OtlpLogsProto, encodeResponse } from './proto.js';
import { lazyModule } from '../../../lib/lazy-module.js';
import { grpcServerCredentials } from '../../shared/grpc-credentials.js';

const grpcJs = lazyModule<typeof grpc>('@grpc/grpc-js');

const identity = (b: Buffer) => b;

/** Creates the server with the logs service registered; the caller binds and shuts it down. */
export function otlpGrpcServer(proto: OtlpLogsProto, ingest: Ingest, events: OtlpEvents, maxBytes: number): grpc.Server {
  const server = new (grpcJs().Server)({ 'grpc.max_receive_message_length': maxBytes });
  const definition: grpc.ServiceDefinition = {
    Export: {
      path: proto.exportPath,
      requestStream: false,
      responseStream: false,
      originalName: 'export',
      requestSerialize: identity,
      requestDeserialize: identity,
      responseSerialize: identity,
      responseDeserialize: identity,
    },
  };
  const answer = (callback: grpc.sendUnaryData<Buffer>, outcome: Outcome, peer: string) => {
    switch (outcome.kind) {
      case 'accepted':
        return callback(null, encodeResponse(proto, outcome.partial));
      case 'full':
        return callback({ code: grpcJs().status.UNAVAILABLE, details: 'the pipeline is full; retry later' });
      case 'abandoned':
        return callback({ code: grpcJs().status.CANCELLED, details: 'cancelled while the pipeline was full' });
      case 'invalid':
        events.requestInvalid('grpc', outcome.reason, peer);
        return callback({ code: grpcJs().status.INVALID_ARGUMENT, details: outcome.reason });
      case 'undelivered':
        return callback({
          code: outcome.status === 'rejected' ? grpcJs().status.DATA_LOSS : grpcJs().status.INTERNAL,
          details: outcome.status === 'rejected' ? 'Delivery failed' : 'Delivery error',
        });
    }
  };
  const exportLogs: grpc.handleUnaryCall<Buffer, Buffer> = (call, callback) => {
    const body = call.request;
    events.received('grpc', body.length);
    const failed = (err: unknown) => {
      events.listenerFailed('grpc', err as Error);
      callback({ code: grpcJs().status.INTERNAL, details: 'internal error' });
    };
    // a call cancelled (or past its deadline) while held is not waited for
    const gone = new AbortController();
    call.once('cancelled', () => gone.abort());
    if (call.cancelled) gone.abort();
    try {
      const outcome = ingest.take('grpc', body, false, gone.signal);
      if (outcome instanceof Promise) outcome.then((o) => answer(callback, o, call.getPeer()), failed);
      else answer(callback, outcome, call.getPeer());
    } catch (err) {
      failed(err);
    }
  };
  server.addService(definition, { Export: exportLogs });
  return server;
}

/** Server credentials of the gRPC listener. */
export function grpcCredentials(tls: TlsOptions | undefined): grpc.ServerCredentials {
  return grpcServerCredentials(tls, 'grpc.tls');
}
