/**
 * The `http_server` source: an HTTP/1.1 listener on one configured path, each request body framed
 * and decoded into one batch. Built on node:http rather than fastify: there is one route, the body
 * is read by hand (a byte cap before buffering, then capped decompression) and a held request must
 * stay unread, so a framework would add per-request work and nothing the source uses.
 * `shutdown$` stops taking connections and completes once requests in flight are answered (at most
 * {@link SHUTDOWN_TIMEOUT_SECS}); unsubscribing closes everything at once.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { Observable } from 'rxjs';
import type { SourceContext } from '../../../lib/component.js';
import { createDeserializer } from '../../../lib/codecs/index.js';
import type { EventBatch } from '../../../lib/event.js';
import { formatSocketAddress, parseSocketAddress, type SocketAddress } from '../../../lib/net/socket-address.js';
import { parsePath } from '../../../lib/path.js';
import { listenerTls } from '../../shared/listener-config.js';
import { holdWhileClosed, runSource } from '../../shared/source/index.js';
import { type HttpServerSourceConfig, codecsOf } from './config.js';
import { httpServerEvents } from './events.js';
import { createHandler } from './handler.js';
import { compileParamList } from './params.js';

/** Seconds requests in flight get to finish after shutdown before connections are cut. */
export const SHUTDOWN_TIMEOUT_SECS = 30;

/** Builds the source; certificates are read now, so a bad one is a build error. */
export function buildHttpServerSource(config: HttpServerSourceConfig, ctx: SourceContext): Observable<EventBatch> {
  const tls = listenerTls(config.tls);
  const address = parseSocketAddress(config.address) as SocketAddress;
  const { framing, decoding } = codecsOf(config);
  if (config.encoding !== undefined) ctx.log.warn('The encoding option of the http_server source is deprecated; configure framing and decoding instead.');
  if (config.acknowledgements.enabled !== undefined)
    ctx.log.warn('Enabling acknowledgements on the http_server source is deprecated; enable them on the sinks instead.');
  const schema = ctx.globals.log_schema;
  const deserializer = createDeserializer(decoding, {
    sourceId: ctx.id,
    sourceType: 'http_server',
    logSchema: schema,
    hostKey: '', // the source writes host_key itself, overwriting, as Vector does
    timezone: ctx.globals.timezone,
  });
  const duplicate = (list: string) => (name: string) =>
    ctx.log.warn(`${list} configuration contains a duplicate entry; removing it.`, { name });
  const auth = config.auth;
  const handlerOptions = {
    method: config.method,
    segments: config.path.split('/').filter((s) => s !== ''),
    strictPath: config.strict_path,
    pathKey: config.path_key === '' ? undefined : parsePath(config.path_key),
    hostKey: config.host_key === '' ? undefined : parsePath(config.host_key),
    responseCode: config.response_code,
    headers: compileParamList(config.headers, duplicate('headers')),
    queryParameters: compileParamList(config.query_parameters, duplicate('query_parameters')),
    authorization: auth === undefined ? undefined : Buffer.from(`Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`),
    framing,
    deserializer,
    maxBytes: ctx.globals.max_decompressed_bytes,
  };
  const { max_connection_age_secs: maxAgeSecs, max_connection_age_jitter_factor: jitter } = config.keepalive;

  const protocol = tls ? 'https' : 'http';
  // received bytes are counted by the source itself, tagged with the request path as well
  return runSource(ctx, { acknowledgements: config.acknowledgements.enabled === true }, (out) => {
    const events = httpServerEvents(ctx, protocol);
    const held = holdWhileClosed(ctx.out, ctx.scheduler);
    const handle = createHandler(ctx, out, events, handlerOptions, held);
    // when each connection must close: its accept time plus the jittered maximum age, on the scheduler's clock
    const closeAt = new WeakMap<Socket, number>();
    const accepted = (socket: Socket) => closeAt.set(socket, ctx.scheduler.now() + maxAgeSecs * 1000 * (1 + jitter * (2 * Math.random() - 1)));
    const onRequest = (req: IncomingMessage, res: ServerResponse) => {
      events.requestReceived();
      const t0 = ctx.scheduler.now();
      res.on('finish', () => events.responseSent(res.statusCode, (ctx.scheduler.now() - t0) / 1000));
      const at = closeAt.get(req.socket);
      if (at === undefined || ctx.scheduler.now() >= at) res.setHeader('connection', 'close');
      handle(req, res);
    };
    const server: Server = tls ? createTlsServer(tls, onRequest) : createServer(onRequest);
    server.on(tls ? 'secureConnection' : 'connection', accepted);
    server.on('error', (err) => {
      events.listenerFailed(err);
      if (!server.listening) out.fail(err);
    });
    server.on('clientError', (_err, socket) => socket.destroy());
    server.listen(address.port, address.host, () => {
      const a = server.address();
      if (a !== null && typeof a === 'object') ctx.log.info('Listening.', { protocol, address: formatSocketAddress({ host: a.address, port: a.port }) });
    });
    let cutTimer: NodeJS.Timeout | undefined;
    return {
      drain: () =>
        new Promise<void>((resolve) => {
          server.close(() => {
            clearTimeout(cutTimer);
            resolve();
          });
          server.closeIdleConnections();
          cutTimer = setTimeout(() => server.closeAllConnections(), SHUTDOWN_TIMEOUT_SECS * 1000);
          cutTimer.unref();
        }),
      close: () => {
        clearTimeout(cutTimer);
        // held requests are let go: refused, since nothing will take them
        held.close();
        server.close();
        server.closeAllConnections();
      },
    };
  });
}
