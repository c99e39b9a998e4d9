/**
 * One stream listener for sources that accept connections: TCP, a unix socket file or a socket
 * passed by systemd, optionally TLS. Connections wait unread past `connection_limit`; each
 * connection pauses while the source's output gate is closed (pause-while-closed.ts); on
 * shutdown the listener stops accepting, half-closes every connection so peers can finish what
 * they are sending, and completes once all have closed (or destroys them after the timeout).
 *
 * Not configurable: the receive buffer of accepted sockets. Node.js cannot set SO_RCVBUF on a
 * net.Socket or a listening TCP server (only on UDP sockets), so `receive_buffer_bytes` stays
 * with the datagram sources.
 */
import { lstatSync, rmSync } from 'node:fs';
import { type Server, type Socket, createServer } from 'node:net';
import { type TLSSocket, type TlsOptions, createServer as createTlsServer } from 'node:tls';
import { Observable, type Subscription } from 'rxjs';
import type { SourceContext } from '../../lib/component.js';
import { formatSocketAddress } from '../../lib/net/socket-address.js';
import { type ListenTarget, systemdFd } from './listen-address.js';
import { connectionFailed, listening } from './listener-events.js';
import { pauseWhileClosed } from './source/pause-while-closed.js';

/** How and where to listen. */
export interface StreamListenerOptions {
  readonly target: ListenTarget;
  /** Most connections served at once; more wait unread (accepted, not refused). */
  readonly connectionLimit?: number | undefined;
  /** TCP keepalive idle time of accepted sockets. */
  readonly keepaliveSecs?: number | undefined;
  /** Server TLS options (listener-config.ts `listenerTls`); undefined = plain. */
  readonly tls?: TlsOptions | undefined;
  /** On shutdown, connections still open after this long are destroyed. */
  readonly shutdownTimeoutSecs: number;
}

/** One accepted connection, ready to read (TLS handshake done). */
export interface Connection {
  /** The stream to read (a TLSSocket with TLS); attach 'data' and 'end' listeners synchronously. */
  readonly socket: Socket;
  /** Peer address and port; for a unix socket the socket path and no port. */
  readonly peerHost: string | undefined;
  readonly peerPort: number | undefined;
  /** Subject of the client certificate (`CN=…,OU=…,O=…,L=…,ST=…,C=…`), when one was required and sent. */
  readonly clientSubject: string | undefined;
  /** Pauses reading while the output gate is closed; call after each emission. */
  pauseIfClosed(): void;
}

/**
 * Listens on subscribe and emits each connection once it holds a slot and its TLS handshake is
 * done; the subscriber must attach its listeners during `next` (reading starts right after).
 * Completes after `ctx.shutdown$` once every connection has closed; errors when listening fails
 * (address in use, systemd socket missing). Unsubscribing closes everything at once.
 */
export function streamConnections(ctx: SourceContext, opts: StreamListenerOptions): Observable<Connection> {
  return new Observable<Connection>((subscriber) => {
    const gated = pauseWhileClosed(ctx.out, ctx.scheduler);
    const slots = new Set<Socket>(); // accepted sockets holding a slot (TLS: the raw TCP socket)
    const connections = new Set<Socket>(); // ready to read: the raw socket, or its TLSSocket
    const waitingForSlot: Socket[] = [];
    let shuttingDown = false;
    let serverClosed = false;
    let force: Subscription | undefined;
    let localPath: string | undefined = opts.target.kind === 'unix' ? opts.target.path : undefined;

    const maybeComplete = () => {
      if (shuttingDown && serverClosed && slots.size === 0) {
        force?.unsubscribe();
        subscriber.complete();
      }
    };

    const ready = (sock: Socket, clientSubject: string | undefined) => {
      connections.add(sock);
      sock.once('close', () => {
        connections.delete(sock);
        gated.forget(sock);
      });
      subscriber.next({
        socket: sock,
        peerHost: sock.remoteAddress ?? localPath,
        peerPort: sock.remotePort,
        clientSubject,
        pauseIfClosed: () => {
          gated.pauseIfClosed(sock);
        },
      });
      // on shutdown a connection is half-closed (we send FIN) and may finish sending
      if (shuttingDown) sock.end();
      sock.resume();
    };

    const tlsServer = opts.tls === undefined ? undefined : createTlsServer(opts.tls);
    tlsServer?.on('secureConnection', (sock: TLSSocket) => {
      sock.on('error', (err) => connectionFailed(ctx, err, sock.remoteAddress));
      ready(sock, opts.tls?.requestCert ? certificateSubject(sock) : undefined);
    });
    tlsServer?.on('tlsClientError', (err, sock) => connectionFailed(ctx, err, sock.remoteAddress));

    const takeSlot = (raw: Socket) => {
      slots.add(raw);
      raw.once('close', () => {
        slots.delete(raw);
        const next = waitingForSlot.shift();
        if (next !== undefined && !next.destroyed) takeSlot(next);
        maybeComplete();
      });
      if (opts.keepaliveSecs !== undefined) raw.setKeepAlive(true, opts.keepaliveSecs * 1000);
      if (tlsServer === undefined) {
        raw.on('error', (err) => connectionFailed(ctx, err, raw.remoteAddress ?? localPath));
        ready(raw, undefined);
        return;
      }
      // the TLSSocket takes over the handle and reports errors itself
      raw.on('error', () => {});
      // documented injection: the TLS server never listens, it only handshakes sockets that hold a slot
      tlsServer.emit('connection', raw);
    };

    // paused on connect: a connection past the limit is accepted but not read (nor handshaked)
    const server: Server = createServer({ pauseOnConnect: true }, (raw) => {
      if (opts.connectionLimit !== undefined && slots.size >= opts.connectionLimit) {
        waitingForSlot.push(raw);
        raw.on('error', () => {});
        raw.once('close', () => {
          const i = waitingForSlot.indexOf(raw);
          if (i >= 0) waitingForSlot.splice(i, 1);
        });
        return;
      }
      takeSlot(raw);
    });
    server.on('error', (err) => subscriber.error(err));
    server.on('close', () => {
      serverClosed = true;
      maybeComplete();
    });
    const onListening = () => {
      const a = server.address();
      const text = typeof a === 'string' ? a : a ? formatSocketAddress({ host: a.address, port: a.port }) : '';
      if (typeof a === 'string') localPath = a;
      listening(ctx, text);
    };
    const target = opts.target;
    if (target.kind === 'tcp') server.listen(target.port, target.host, onListening);
    else if (target.kind === 'unix') {
      removeStaleSocket(target.path);
      server.listen(target.path, onListening);
    } else {
      const fd = systemdFd(target.index);
      if (typeof fd === 'string') subscriber.error(new Error(fd));
      else server.listen({ fd }, onListening);
    }

    const shutdownSub = ctx.shutdown$.subscribe(() => {
      if (shuttingDown) return;
      shuttingDown = true;
      server.close();
      for (const s of waitingForSlot.splice(0)) s.destroy();
      for (const s of connections) s.end();
      force = ctx.scheduler.schedule(() => {
        for (const s of connections) s.destroy();
        for (const s of slots) s.destroy(); // still in a TLS handshake
      }, opts.shutdownTimeoutSecs * 1000);
      maybeComplete();
    });

    return () => {
      shutdownSub.unsubscribe();
      force?.unsubscribe();
      gated.close();
      server.close();
      for (const s of connections) s.destroy();
      for (const s of slots) s.destroy();
      for (const s of waitingForSlot) s.destroy();
      if (target.kind === 'unix') removeStaleSocket(target.path);
    };
  });
}

/** A socket file left by an earlier run would make listen fail with EADDRINUSE. */
function removeStaleSocket(path: string): void {
  try {
    if (lstatSync(path).isSocket()) rmSync(path, { force: true });
  } catch {
    // absent: nothing to remove
  }
}

const SUBJECT_FIELDS = ['CN', 'OU', 'O', 'L', 'ST', 'C'] as const;

/** The client certificate's subject as `CN=…,OU=…,O=…,L=…,ST=…,C=…` (fields present only); undefined without one. */
export function certificateSubject(sock: TLSSocket): string | undefined {
  const subject = sock.getPeerCertificate().subject as Record<string, string | string[] | undefined> | undefined;
  if (subject === undefined) return undefined;
  const parts: string[] = [];
  for (const f of SUBJECT_FIELDS) {
    const v = subject[f];
    // a field given twice: the last one, as the certificate lists it
    if (v !== undefined) parts.push(`${f}=${Array.isArray(v) ? v[v.length - 1] : v}`);
  }
  return parts.join(',');
}
