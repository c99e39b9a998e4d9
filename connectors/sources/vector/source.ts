/**
 * The `vector` source: Vector's `vector` protocol version 2, a gRPC server that takes
 * `PushEvents` from Vector's `vector` sink (or weir's). Logs and metrics arrive with their exact
 * value types and metadata. While the output is full a push is held (refused UNAVAILABLE, which the
 * client retries, only past the hold timeout), so a blocked sink holds requests instead of memory.
 * `shutdown$` stops taking pushes and completes once the ones in flight are answered (at most
 * {@link SHUTDOWN_TIMEOUT_SECS}); unsubscribing answers them UNAVAILABLE and closes at once.
 */
import type { Observable } from 'rxjs';
import type { SourceContext } from '../../../lib/component.js';
import type { EventBatch } from '../../../lib/event.js';
import { formatSocketAddress, parseSocketAddress, type SocketAddress } from '../../../lib/net/socket-address.js';
import { grpcServerCredentials } from '../../shared/grpc-credentials.js';
import { listenerTls } from '../../shared/listener-config.js';
import { holdWhileClosed, runSource } from '../../shared/source/index.js';
import { vectorProto } from '../../shared/vector/proto.js';
import type { VectorSourceConfig } from './config.js';
import { vectorSourceEvents } from './events.js';
import { vectorServer } from './grpc.js';

/** Seconds pushes in flight get to be answered after shutdown before they are cut. */
export const SHUTDOWN_TIMEOUT_SECS = 30;

/** grpc-js options from `keepalive.*` and the largest message. */
function serverOptions(config: VectorSourceConfig, maxBytes: number): Record<string, number> {
  const o: Record<string, number> = { 'grpc.max_receive_message_length': maxBytes };
  const age = config.keepalive.max_connection_age_secs;
  if (age !== undefined) {
    o['grpc.max_connection_age_ms'] = age * 1000;
    // Vector closes at age + grace; without a grace, at the age
    o['grpc.max_connection_age_grace_ms'] = (config.keepalive.max_connection_age_grace_secs ?? 0) * 1000;
  }
  return o;
}

/** Builds the source; certificates and the protocol definitions are read now (a bad one is a build error). */
export function buildVectorSource(config: VectorSourceConfig, ctx: SourceContext): Observable<EventBatch> {
  const creds = grpcServerCredentials(listenerTls(config.tls), 'tls');
  const proto = vectorProto();
  if (config.acknowledgements.enabled !== undefined)
    ctx.log.warn('acknowledgements.enabled on the vector source is deprecated and has no effect; enable acknowledgements globally or on the sinks.');
  const schema = ctx.globals.log_schema;
  const shape = {
    sourceId: ctx.id,
    sourceType: 'vector',
    messageKey: schema.message_key,
    sourceTypeKey: schema.source_type_key || undefined,
    timestampKey: schema.timestamp_key || undefined,
  };
  const address = parseSocketAddress(config.address) as SocketAddress;
  const options = serverOptions(config, ctx.globals.max_decompressed_bytes);
  return runSource(ctx, { protocol: 'grpc', lagKey: shape.timestampKey }, (out) => {
    const events = vectorSourceEvents(ctx);
    const hold = holdWhileClosed(ctx.out, ctx.scheduler);
    const s = vectorServer({ ctx, proto, out, hold, events, shape, options });
    let closed = false;
    let cutTimer: NodeJS.Timeout | undefined;
    s.server.bindAsync(formatSocketAddress(address), creds, (err, port) => {
      if (err) {
        events.listenerFailed(err);
        out.fail(err);
        return;
      }
      if (closed) return;
      ctx.log.info('Listening.', { protocol: 'grpc', address: formatSocketAddress({ host: address.host, port }) });
    });
    return {
      // refuse new pushes; answer those in flight (cut after the grace period)
      drain: () =>
        new Promise<void>((resolve) => {
          closed = true;
          s.stopServing();
          s.server.tryShutdown(() => {
            clearTimeout(cutTimer);
            resolve();
          });
          cutTimer = setTimeout(() => {
            hold.close();
            s.abandonPending();
            s.server.forceShutdown();
          }, SHUTDOWN_TIMEOUT_SECS * 1000);
          cutTimer.unref();
        }),
      close: () => {
        closed = true;
        clearTimeout(cutTimer);
        s.stopServing();
        hold.close();
        s.abandonPending();
        s.server.forceShutdown();
      },
    };
  });
}
