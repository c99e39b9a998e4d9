/**
 * The `socket` source: a TCP (optionally TLS) or unix stream listener (connectors/shared
 * tcp-listener.ts), or a UDP socket. Each chunk read is decoded at once into one batch.
 * While the output gate is closed every connection that delivers data is paused, so the kernel
 * buffers fill and TCP pushes back on the sender; all resume together when the gate opens
 * again. UDP cannot push back: datagrams keep being read.
 */
import { createSocket } from 'node:dgram';
import type { TlsOptions } from 'node:tls';
import type { Observable } from 'rxjs';
import type { SourceContext } from '../../../lib/component.js';
import type { EventBatch } from '../../../lib/event.js';
import { type SocketAddress, parseSocketAddress } from '../../../lib/net/socket-address.js';
import { parsePath } from '../../../lib/path.js';
import { type ListenTarget, parseListenAddress } from '../../shared/listen-address.js';
import { listenerTls } from '../../shared/listener-config.js';
import { type RunningSource, type SourceOutput, decodeConnection, runSource, serveConnections, serveDatagrams } from '../../shared/source/index.js';
import type { SocketSourceConfig } from './config.js';
import { decoderFor } from './decoder.js';

/** Builds the source; unsubscribing closes everything at once, `shutdown$` drains gracefully. */
export function buildSocketSource(config: SocketSourceConfig, ctx: SourceContext): Observable<EventBatch> {
  const tls = listenerTls(config.tls); // files read at build: a bad certificate is a build error
  const protocol = config.mode === 'udp' ? 'udp' : config.mode === 'unix_stream' ? 'unix' : 'tcp';
  return runSource(ctx, { protocol }, (out) => (config.mode === 'udp' ? runUdp(config, ctx, out) : runStream(config, ctx, out, tls)));
}

function runStream(config: SocketSourceConfig, ctx: SourceContext, out: SourceOutput, tls: TlsOptions | undefined): RunningSource {
  const isUnix = config.mode === 'unix_stream';
  const newDecoder = decoderFor(config, ctx, true);
  // Node asks for a client certificate only when verify_certificate is on: no subject otherwise
  const metadataKey = tls?.requestCert && config.tls?.client_metadata_key !== undefined ? parsePath(config.tls.client_metadata_key) : undefined;
  const target: ListenTarget = isUnix ? { kind: 'unix', path: config.path! } : (parseListenAddress(config.address!, { systemd: false }) as ListenTarget);
  const listenerOptions = {
    target,
    connectionLimit: config.connection_limit,
    keepaliveSecs: config.keepalive?.time_secs,
    tls,
    shutdownTimeoutSecs: config.shutdown_timeout_secs,
  };
  return serveConnections(ctx, out, listenerOptions, (conn) => {
    if (ctx.threaded) {
      // a threaded segment decodes in its workers (docs/threads.md): only bytes go there
      const intake = ctx.threaded.connection(conn.peerHost, conn.peerPort);
      conn.socket.on('data', (chunk: Buffer) => {
        out.received(chunk.length);
        intake.push(chunk);
        conn.pauseIfClosed();
      });
      conn.socket.on('end', () => intake.end());
      return;
    }
    const decoder = newDecoder();
    decoder.stamp.host = conn.peerHost;
    decoder.stamp.port = conn.peerPort;
    decodeConnection(conn, out, decoder, metadataKey);
  });
}

function runUdp(config: SocketSourceConfig, ctx: SourceContext, out: SourceOutput): RunningSource {
  const addr = parseSocketAddress(config.address!) as SocketAddress;
  const decoder = decoderFor(config, ctx, false)();
  const sock = createSocket({
    type: addr.host.includes(':') ? 'udp6' : 'udp4',
    ...(config.receive_buffer_bytes !== undefined ? { recvBufferSize: config.receive_buffer_bytes } : {}),
  });
  const max = config.max_length;
  sock.on('message', (msg, rinfo) => {
    out.received(msg.length);
    decoder.stamp.host = rinfo.address;
    decoder.stamp.port = rinfo.port;
    // Vector: a datagram longer than max_length is truncated
    const first = decoder.push(msg.length > max ? msg.subarray(0, max) : msg);
    const rest = decoder.end();
    out.emit(rest.length === 0 ? first : first.length === 0 ? rest : first.concat(rest));
  });
  return serveDatagrams(ctx, out, sock, addr);
}
