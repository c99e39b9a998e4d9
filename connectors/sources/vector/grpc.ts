/**
 * The gRPC services of the `vector` source on @grpc/grpc-js: `vector.Vector` (`PushEvents`,
 * `HealthCheck`) and the standard `grpc.health.v1.Health`. Bodies stay raw Buffers through grpc-js
 * (which inflates gzip messages and enforces the largest message) and are decoded by the codec in
 * connectors/shared/vector. Answers follow Vector's source: OK once the events are taken (or, with
 * acknowledgements, delivered); INTERNAL when delivery errored, which Vector's sink retries;
 * DATA_LOSS when it was rejected, which it does not; UNAVAILABLE while shutting down or when the
 * output stayed full past the hold timeout (retried). A body that is not a PushEventsRequest is
 * INVALID_ARGUMENT (not retried).
 */
import type * as grpc from '@grpc/grpc-js';
import type { SourceContext } from '../../../lib/component.js';
import type { DeliveryStatus } from '../../../lib/event.js';
import { lazyModule } from '../../../lib/lazy-module.js';
import { Timestamp } from '../../../lib/value.js';
import { type HoldWhileClosed, REQUEST_HOLD_TIMEOUT_MS, type SourceOutput } from '../../shared/source/index.js';
import { type DecodeShape, ProtoError, decodePushEvents } from '../../shared/vector/decode.js';
import type { VectorProto } from '../../shared/vector/proto.js';
import type { VectorSourceEvents } from './events.js';

const grpcJs = lazyModule<typeof grpc>('@grpc/grpc-js');

const identity = (b: Buffer) => b;

const unary = (path: string, name: string): grpc.MethodDefinition<Buffer, Buffer> => ({
  path,
  requestStream: false,
  responseStream: false,
  originalName: name,
  requestSerialize: identity,
  requestDeserialize: identity,
  responseSerialize: identity,
  responseDeserialize: identity,
});

/** An empty PushEventsResponse. */
const EMPTY = Buffer.alloc(0);

/** What the server needs of the source. */
export interface VectorServerParts {
  readonly ctx: SourceContext;
  readonly proto: VectorProto;
  readonly out: SourceOutput;
  readonly hold: HoldWhileClosed;
  readonly events: VectorSourceEvents;
  readonly shape: DecodeShape;
  readonly options: grpc.ServerOptions;
}

/** The server and what its owner drives: serving status and the calls still unanswered. */
export interface VectorServer {
  readonly server: grpc.Server;
  /** Stops taking pushes (answered UNAVAILABLE) and reports NOT_SERVING to health checks. */
  stopServing(): void;
  /** Answers every unanswered push UNAVAILABLE (the source is closing). */
  abandonPending(): void;
  /** Pushes not answered yet. */
  readonly pending: number;
}

export function vectorServer(p: VectorServerParts): VectorServer {
  const { ctx, proto, out, hold, events, shape } = p;
  const code = grpcJs().status;
  const server = new (grpcJs().Server)(p.options);
  let serving = true;
  const pending = new Set<grpc.sendUnaryData<Buffer>>();
  const watchers = new Set<grpc.ServerWritableStream<Buffer, Buffer>>();

  const fail = (status: grpc.status, details: string): grpc.ServerErrorResponse => Object.assign(new Error(details), { code: status, details });

  const answered = (callback: grpc.sendUnaryData<Buffer>) => (err: grpc.ServerErrorResponse | null) => {
    if (!pending.delete(callback)) return; // already answered (the source closed)
    callback(err, err === null ? EMPTY : undefined);
  };

  const statusError = (s: Exclude<DeliveryStatus, 'delivered'>) => (s === 'rejected' ? fail(code.DATA_LOSS, 'Delivery failed') : fail(code.INTERNAL, 'Delivery error'));

  /** Decodes and emits an admitted body; runs synchronously up to the emission. */
  function take(body: Buffer, peer: string, reply: (err: grpc.ServerErrorResponse | null) => void): void {
    let decoded;
    try {
      decoded = decodePushEvents(body, shape, new Timestamp(Math.floor(ctx.scheduler.now())));
    } catch (err) {
      // RangeError: nesting deeper than the stack (a hostile or broken sender), refused as malformed
      if (!(err instanceof ProtoError) && !(err instanceof RangeError)) throw err;
      events.requestInvalid(err.message, peer);
      return reply(fail(code.INVALID_ARGUMENT, `Could not decode request: ${err.message}`));
    }
    for (const [reason, n] of decoded.dropped) events.eventsDropped(reason, n);
    const batch = decoded.events;
    const status = out.emitAwait(batch);
    const settle = (s: DeliveryStatus) => {
      if (s === 'delivered') return reply(null);
      events.deliveryFailed(s, batch.length);
      reply(statusError(s));
    };
    if (typeof status === 'string') settle(status);
    else status.then(settle, () => reply(fail(code.INTERNAL, 'Delivery error')));
  }

  const pushEvents: grpc.handleUnaryCall<Buffer, Buffer> = (call, callback) => {
    if (!serving) return callback(fail(code.UNAVAILABLE, 'the source is shutting down'));
    const body = call.request;
    out.received(body.length);
    pending.add(callback);
    const reply = answered(callback);
    const peer = call.getPeer();
    // a call cancelled (or past its deadline) while held is not waited for
    const gone = new AbortController();
    call.once('cancelled', () => gone.abort());
    const admitted = hold.wait(REQUEST_HOLD_TIMEOUT_MS, gone.signal);
    const run = () => {
      try {
        take(body, peer, reply);
      } catch (err) {
        events.listenerFailed(err as Error);
        reply(fail(code.INTERNAL, 'internal error'));
      }
    };
    if (admitted === true) return run();
    admitted.then((ok) => {
      if (ok) return run();
      if (gone.signal.aborted) return reply(fail(code.CANCELLED, 'cancelled while the pipeline was full'));
      events.backpressure();
      reply(fail(code.UNAVAILABLE, 'the pipeline is full; retry later'));
    }, run);
  };

  const healthCheck: grpc.handleUnaryCall<Buffer, Buffer> = (_call, callback) => {
    const message = proto.healthCheckResponse.create({ status: serving ? 0 : 1 });
    callback(null, Buffer.from(proto.healthCheckResponse.encode(message).finish()));
  };

  /** grpc.health.v1 status of a service name: the server ('') and `vector.Vector` are known. */
  const healthOf = (call: { request: Buffer }): Buffer | undefined => {
    let service = '';
    try {
      service = (proto.grpcHealthRequest.decode(call.request) as unknown as { service: string }).service;
    } catch {
      return undefined;
    }
    if (service !== '' && service !== 'vector.Vector') return undefined;
    return Buffer.from(proto.grpcHealthResponse.encode(proto.grpcHealthResponse.create({ status: serving ? 1 : 2 })).finish());
  };
  const grpcCheck: grpc.handleUnaryCall<Buffer, Buffer> = (call, callback) => {
    const answer = healthOf(call);
    if (answer === undefined) return callback(fail(code.NOT_FOUND, 'unknown service'));
    callback(null, answer);
  };
  const grpcWatch: grpc.handleServerStreamingCall<Buffer, Buffer> = (call) => {
    const answer = healthOf(call);
    if (answer === undefined) {
      call.write(Buffer.from(proto.grpcHealthResponse.encode(proto.grpcHealthResponse.create({ status: 3 })).finish()));
      return;
    }
    call.write(answer);
    if (!serving) return call.end();
    watchers.add(call);
    call.once('cancelled', () => watchers.delete(call));
  };

  server.addService({ PushEvents: unary(proto.pushEventsPath, 'pushEvents'), HealthCheck: unary(proto.healthCheckPath, 'healthCheck') }, { PushEvents: pushEvents, HealthCheck: healthCheck });
  server.addService(
    { Check: unary(proto.grpcHealthCheckPath, 'check'), Watch: { ...unary(proto.grpcHealthWatchPath, 'watch'), responseStream: true } },
    { Check: grpcCheck, Watch: grpcWatch },
  );

  return {
    server,
    stopServing() {
      serving = false;
      const notServing = Buffer.from(proto.grpcHealthResponse.encode(proto.grpcHealthResponse.create({ status: 2 })).finish());
      for (const w of watchers) {
        w.write(notServing);
        w.end();
      }
      watchers.clear();
    },
    abandonPending() {
      const calls = [...pending];
      pending.clear();
      for (const cb of calls) cb(fail(code.UNAVAILABLE, 'the source is shutting down'));
    },
    get pending() {
      return pending.size;
    },
  };
}
