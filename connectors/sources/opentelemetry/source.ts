/**
 * The `opentelemetry` source: OTLP logs over gRPC and HTTP at once, each listener with its own
 * TLS, every record one event on the named output `logs`. While the output is full, requests of
 * both listeners are held in one queue and taken in arrival order as it opens (refused only past
 * the hold timeout). `shutdown$` stops both listeners from taking new connections and completes
 * once requests in flight are answered (at most {@link SHUTDOWN_TIMEOUT_SECS}); unsubscribing
 * closes everything at once.
 */
import type { Server } from 'node:http';
import type { Observable } from 'rxjs';
import type { SourceContext } from '../../../lib/component.js';
import type { RoutedBatch } from '../../../lib/event.js';
import { formatSocketAddress, parseSocketAddress, type SocketAddress } from '../../../lib/net/socket-address.js';
import { listenerTls } from '../../shared/listener-config.js';
import { holdWhileClosed, runSource } from '../../shared/source/index.js';
import type { OpentelemetrySourceConfig } from './config.js';
import { otlpEvents } from './events.js';
import { grpcCredentials, otlpGrpcServer } from './grpc.js';
import { otlpHttpServer } from './http.js';
import { LOGS_OUTPUT, createIngest } from './ingest.js';
import { otlpLogsProto } from './proto.js';
import type { RecordShape } from './record.js';

/** Seconds requests in flight get to finish after shutdown before connections are cut. */
export const SHUTDOWN_TIMEOUT_SECS = 30;

/** Builds the source; certificates and protos are read now, so a bad one is a build error. */
export function buildOpentelemetrySource(config: OpentelemetrySourceConfig, ctx: SourceContext): Observable<RoutedBatch> {
  const httpTls = listenerTls(config.http.tls);
  const grpcCreds = grpcCredentials(listenerTls(config.grpc.tls));
  const proto = otlpLogsProto();
  if (config.acknowledgements.enabled !== undefined)
    ctx.log.warn('acknowledgements.enabled on the opentelemetry source is deprecated and has no effect; enable acknowledgements globally or on the sinks.');
  const schema = ctx.globals.log_schema;
  const shape: RecordShape = {
    sourceId: ctx.id,
    sourceType: 'opentelemetry',
    messageKey: schema.message_key,
    timestampKey: schema.timestamp_key,
    sourceTypeKey: schema.source_type_key,
  };
  const maxBytes = ctx.globals.max_decompressed_bytes;
  const grpcAddress = parseSocketAddress(config.grpc.address) as SocketAddress;
  const httpAddress = parseSocketAddress(config.http.address) as SocketAddress;
  return runSource<RoutedBatch>(ctx, { output: LOGS_OUTPUT, protocol: 'http', lagKey: shape.timestampKey }, (out) => {
    const events = otlpEvents(ctx, out);
    const hold = holdWhileClosed(ctx.out, ctx.scheduler);
    const ingest = createIngest(ctx, proto, shape, events, out, hold);
    const httpServer: Server = otlpHttpServer(proto, ingest, events, maxBytes, httpTls);
    const grpcServer = otlpGrpcServer(proto, ingest, events, maxBytes);
    let closed = false;
    let cutTimer: NodeJS.Timeout | undefined;

    httpServer.on('error', (err) => {
      events.listenerFailed('http', err);
      if (!httpServer.listening) out.fail(err);
    });
    httpServer.on('clientError', (_err, socket) => socket.destroy());
    httpServer.listen(httpAddress.port, httpAddress.host, () => {
      const a = httpServer.address();
      if (a !== null && typeof a === 'object') ctx.log.info('Listening.', { protocol: 'http', address: formatSocketAddress({ host: a.address, port: a.port }) });
    });
    grpcServer.bindAsync(formatSocketAddress(grpcAddress), grpcCreds, (err, port) => {
      if (err) {
        events.listenerFailed('grpc', err);
        out.fail(err);
        return;
      }
      if (closed) return;
      ctx.log.info('Listening.', { protocol: 'grpc', address: formatSocketAddress({ host: grpcAddress.host, port }) });
    });

    return {
      // stop taking connections; finish the requests in flight, cutting them after the grace period
      drain: () =>
        new Promise<void>((resolve) => {
          closed = true;
          let open = 2;
          const done = () => {
            if (--open > 0) return;
            clearTimeout(cutTimer);
            resolve();
          };
          httpServer.close(() => done());
          httpServer.closeIdleConnections();
          grpcServer.tryShutdown(() => done());
          cutTimer = setTimeout(() => {
            httpServer.closeAllConnections();
            grpcServer.forceShutdown();
          }, SHUTDOWN_TIMEOUT_SECS * 1000);
          cutTimer.unref();
        }),
      close: () => {
        hold.close();
        clearTimeout(cutTimer);
        closed = true;
        httpServer.close();
        httpServer.closeAllConnections();
        grpcServer.forceShutdown();
      },
    };
  });
}
