/**
 * The `syslog` source: a TCP (optionally TLS) or unix stream listener (connectors/shared
 * tcp-listener.ts) whose connections are framed as Vector frames syslog streams (RFC 6587: octet
 * counting when a frame starts with a digit 1-9, otherwise one message per line), or a UDP socket
 * with one message per datagram. Each chunk read is decoded at once into one batch. While the
 * output gate is closed every stream connection that delivers data is paused, so TCP pushes back
 * on the sender; UDP cannot push back and keeps reading.
 */
import { createSocket } from 'node:dgram';
import type { TlsOptions } from 'node:tls';
import type { Observable } from 'rxjs';
import { type StreamDecoder, streamDecoderFactory } from '../../../lib/codecs/stream-decoder.js';
import type { SourceContext } from '../../../lib/component.js';
import type { EventBatch } from '../../../lib/event.js';
import { type SocketAddress, parseSocketAddress } from '../../../lib/net/socket-address.js';
import { parsePath } from '../../../lib/path.js';
import { type ListenTarget, parseListenAddress } from '../../shared/listen-address.js';
import { listenerTls } from '../../shared/listener-config.js';
import { type RunningSource, type SourceOutput, decodeConnection, runSource, serveConnections, serveDatagrams } from '../../shared/source/index.js';
import type { SyslogSourceConfig } from './config.js';
import { SYSLOG_SOURCE_TYPE, syslogDeserializer } from './decode.js';
import { type SyslogEvents, syslogEvents } from './events.js';

/** Vector's syslog source gives open connections 30 s to finish on shutdown (not configurable). */
const SHUTDOWN_TIMEOUT_SECS = 30;

/** The largest UDP payload (65 535 less the IP and UDP headers, RFC 768): a datagram is never cut. */
const MAX_DATAGRAM_BYTES = 65_535;

/** Builds the source; unsubscribing closes everything at once, `shutdown$` drains gracefully. */
export function buildSyslogSource(config: SyslogSourceConfig, ctx: SourceContext): Observable<EventBatch> {
  const tls = listenerTls(config.tls); // files read at build: a bad certificate is a build error
  const events = syslogEvents(ctx);
  if (config.mode === 'tcp' && config.receive_buffer_bytes !== undefined) events.receiveBufferIgnored(config.receive_buffer_bytes);
  const stream = config.mode !== 'udp';
  const newDecoder = decoderFor(config, ctx, stream);
  // the lag of each message's own time on arrival, as Vector records it for every source
  return runSource(ctx, { protocol: config.mode, lagKey: ctx.globals.log_schema.timestamp_key }, (out) =>
    stream ? runStream(config, ctx, out, tls, newDecoder) : runUdp(config, ctx, out, newDecoder(), events),
  );
}

/** Frames streams by octet counting or lines (up to max_length), datagrams whole. */
function decoderFor(config: SyslogSourceConfig, ctx: SourceContext, stream: boolean): () => StreamDecoder {
  const schema = ctx.globals.log_schema;
  return streamDecoderFactory(ctx, {
    framing: stream ? { method: 'octet_counting', octet_counting: { max_length: config.max_length } } : { method: 'bytes' },
    decoding: { codec: 'syslog' },
    sourceType: SYSLOG_SOURCE_TYPE,
    deserializer: syslogDeserializer({ sourceId: ctx.id, logSchema: schema, hostKey: config.host_key ?? schema.host_key, timezone: ctx.globals.timezone }),
    // Vector reads a datagram whole, whatever max_length says
    defaultMaxLength: stream ? config.max_length : MAX_DATAGRAM_BYTES,
  });
}

function runStream(config: SyslogSourceConfig, ctx: SourceContext, out: SourceOutput, tls: TlsOptions | undefined, newDecoder: () => StreamDecoder): RunningSource {
  // Node asks for a client certificate only when verify_certificate is on: no subject otherwise
  const metadataKey = tls?.requestCert && config.tls?.client_metadata_key !== undefined ? parsePath(config.tls.client_metadata_key) : undefined;
  const target: ListenTarget = config.mode === 'unix' ? { kind: 'unix', path: config.path! } : (parseListenAddress(config.address!, { systemd: false }) as ListenTarget);
  const listenerOptions = {
    target,
    connectionLimit: config.connection_limit,
    keepaliveSecs: config.keepalive?.time_secs,
    tls,
    shutdownTimeoutSecs: SHUTDOWN_TIMEOUT_SECS,
  };
  return serveConnections(ctx, out, listenerOptions, (conn) => {
    const decoder = newDecoder();
    decoder.stamp.host = conn.peerHost;
    decodeConnection(conn, out, decoder, metadataKey);
  });
}

function runUdp(config: SyslogSourceConfig, ctx: SourceContext, out: SourceOutput, decoder: StreamDecoder, events: SyslogEvents): RunningSource {
  const addr = parseSocketAddress(config.address!) as SocketAddress;
  const sock = createSocket({
    type: addr.host.includes(':') ? 'udp6' : 'udp4',
    ...(config.receive_buffer_bytes !== undefined ? { recvBufferSize: config.receive_buffer_bytes } : {}),
  });
  sock.on('message', (msg, rinfo) => {
    out.received(msg.length);
    decoder.stamp.host = rinfo.address;
    const first = decoder.push(msg);
    const rest = decoder.end();
    out.emit(rest.length === 0 ? first : first.length === 0 ? rest : first.concat(rest));
  });
  // after the bind, one failed read is counted and the socket goes on
  return serveDatagrams(ctx, out, sock, addr, (err) => events.receiveFailed(err));
}
