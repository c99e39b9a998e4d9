/**
 * The `socket` source: a TCP or unix stream listener, or a UDP socket. Each chunk read is decoded
 * at once into one batch (STYLE §9). While the output gate is closed every connection that
 * delivers data is paused, so the kernel buffers fill and TCP pushes back on the sender; all
 * resume together when the gate opens (STYLE §3). UDP cannot push back: datagrams keep being read.
 */
import { createSocket } from 'node:dgram';
import { lstatSync, rmSync } from 'node:fs';
import { type Server, type Socket, createServer } from 'node:net';
import { Observable, type Subscriber, type Subscription } from 'rxjs';
import { defaultDecodingFraming, receivedBytesCounter, streamDecoderFactory } from '../../../lib/codecs/index.js';
import type { SourceContext } from '../../../lib/component.js';
import type { EventBatch } from '../../../lib/event.js';
import { whenOpen } from '../../../lib/gate.js';
import { type SocketAddress, formatSocketAddress, parseSocketAddress } from '../../../lib/net/socket-address.js';
import type { SocketSourceConfig } from './config.js';
import { connectionFailed, listening } from './events.js';

/** Builds the source; unsubscribing closes everything at once, `shutdown$` drains gracefully. */
export function buildSocketSource(config: SocketSourceConfig, ctx: SourceContext): Observable<EventBatch> {
  return new Observable<EventBatch>((subscriber) => (config.mode === 'udp' ? runUdp(config, ctx, subscriber) : runStream(config, ctx, subscriber)));
}

function decoderFor(config: SocketSourceConfig, ctx: SourceContext, stream: boolean) {
  return streamDecoderFactory(ctx, {
    // streams default to the codec's framing (lines; length-delimited for native), datagrams to one frame each (Vector's defaults)
    framing: config.framing ?? (stream ? defaultDecodingFraming(config.decoding.codec) : { method: 'bytes' }),
    decoding: config.decoding,
    sourceType: 'socket',
    hostKey: config.host_key,
    portKey: config.port_key,
    defaultMaxLength: stream ? config.max_length : undefined,
  });
}

function runStream(config: SocketSourceConfig, ctx: SourceContext, subscriber: Subscriber<EventBatch>): () => void {
  const isUnix = config.mode === 'unix_stream';
  const newDecoder = decoderFor(config, ctx, true);
  const receivedBytes = receivedBytesCounter(ctx, { protocol: isUnix ? 'unix' : 'tcp' });
  const connections = new Set<Socket>();
  const waitingForSlot: Socket[] = [];
  const paused = new Set<Socket>();
  let resumeSub: Subscription | undefined;
  let shuttingDown = false;
  let forceTimer: ReturnType<typeof setTimeout> | undefined;
  let serverClosed = false;

  const pauseUntilOpen = (sock: Socket) => {
    sock.pause();
    paused.add(sock);
    if (resumeSub) return;
    const sub = whenOpen(ctx.out).subscribe(() => {
      resumeSub = undefined;
      for (const s of paused) s.resume();
      paused.clear();
    });
    // an emission during subscribe already resumed everything
    resumeSub = sub.closed ? undefined : sub;
  };

  const maybeComplete = () => {
    if (shuttingDown && serverClosed && connections.size === 0) {
      if (forceTimer) clearTimeout(forceTimer);
      subscriber.complete();
    }
  };

  const serve = (sock: Socket) => {
    connections.add(sock);
    if (config.keepalive?.time_secs !== undefined) sock.setKeepAlive(true, config.keepalive.time_secs * 1000);
    const decoder = newDecoder();
    decoder.stamp.host = isUnix ? config.path : sock.remoteAddress;
    decoder.stamp.port = isUnix ? undefined : sock.remotePort;
    const emit = (batch: EventBatch) => {
      if (batch.length > 0) subscriber.next(batch);
    };
    sock.on('data', (chunk: Buffer) => {
      receivedBytes.add(chunk.length);
      emit(decoder.push(chunk));
      if (!ctx.out.isOpen) pauseUntilOpen(sock);
    });
    sock.on('end', () => emit(decoder.end()));
    sock.on('error', (err) => connectionFailed(ctx, err, decoder.stamp.host));
    sock.on('close', () => {
      connections.delete(sock);
      paused.delete(sock);
      const next = waitingForSlot.shift();
      if (next && !next.destroyed) {
        serve(next);
        next.resume();
      }
      maybeComplete();
    });
    // on shutdown a connection is half-closed (we send FIN) and may finish sending
    if (shuttingDown) sock.end();
  };

  const server: Server = createServer({ pauseOnConnect: true }, (sock) => {
    if (config.connection_limit !== undefined && connections.size >= config.connection_limit) {
      // Vector: past the limit a connection waits unread instead of being refused
      waitingForSlot.push(sock);
      sock.on('error', () => {});
      sock.on('close', () => {
        const i = waitingForSlot.indexOf(sock);
        if (i >= 0) waitingForSlot.splice(i, 1);
      });
      return;
    }
    serve(sock);
    sock.resume();
  });
  server.on('error', (err) => subscriber.error(err));
  server.on('close', () => {
    serverClosed = true;
    maybeComplete();
  });

  if (isUnix) {
    removeStaleSocket(config.path!);
    server.listen(config.path!, () => listening(ctx, config.path!));
  } else {
    const addr = parseSocketAddress(config.address!) as SocketAddress;
    server.listen(addr.port, addr.host, () => {
      const a = server.address();
      listening(ctx, typeof a === 'object' && a ? formatSocketAddress({ host: a.address, port: a.port }) : config.address!);
    });
  }

  const shutdownSub = ctx.shutdown$.subscribe(() => {
    if (shuttingDown) return;
    shuttingDown = true;
    server.close();
    for (const s of waitingForSlot.splice(0)) s.destroy();
    for (const s of connections) s.end();
    forceTimer = setTimeout(() => {
      for (const s of connections) s.destroy();
    }, config.shutdown_timeout_secs * 1000);
    forceTimer.unref?.();
    maybeComplete();
  });

  return () => {
    shutdownSub.unsubscribe();
    resumeSub?.unsubscribe();
    if (forceTimer) clearTimeout(forceTimer);
    server.close();
    for (const s of connections) s.destroy();
    for (const s of waitingForSlot) s.destroy();
    if (isUnix) removeStaleSocket(config.path!);
  };
}

/** A socket file left by an earlier run would make listen fail with EADDRINUSE. */
function removeStaleSocket(path: string): void {
  try {
    if (lstatSync(path).isSocket()) rmSync(path, { force: true });
  } catch {
    // absent: nothing to remove
  }
}

function runUdp(config: SocketSourceConfig, ctx: SourceContext, subscriber: Subscriber<EventBatch>): () => void {
  const addr = parseSocketAddress(config.address!) as SocketAddress;
  const decoder = decoderFor(config, ctx, false)();
  const receivedBytes = receivedBytesCounter(ctx, { protocol: 'udp' });
  const sock = createSocket({
    type: addr.host.includes(':') ? 'udp6' : 'udp4',
    ...(config.receive_buffer_bytes !== undefined ? { recvBufferSize: config.receive_buffer_bytes } : {}),
  });
  const max = config.max_length;
  sock.on('message', (msg, rinfo) => {
    receivedBytes.add(msg.length);
    decoder.stamp.host = rinfo.address;
    decoder.stamp.port = rinfo.port;
    // Vector: a datagram longer than max_length is truncated
    const first = decoder.push(msg.length > max ? msg.subarray(0, max) : msg);
    const rest = decoder.end();
    const batch = rest.length === 0 ? first : first.length === 0 ? rest : first.concat(rest);
    if (batch.length > 0) subscriber.next(batch);
  });
  sock.on('error', (err) => subscriber.error(err));
  sock.bind(addr.port, addr.host, () => {
    const a = sock.address();
    listening(ctx, formatSocketAddress({ host: a.address, port: a.port }));
  });
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    sock.close();
  };
  const shutdownSub = ctx.shutdown$.subscribe(() => {
    close();
    subscriber.complete();
  });
  return () => {
    shutdownSub.unsubscribe();
    close();
  };
}
