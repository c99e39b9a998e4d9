/**
 * The HTTP(S) listener of the Prometheus endpoints weir serves (the exporter's `/metrics`, the
 * remote-write receiver): node:http on one address, TLS when configured, and a close that cuts
 * open connections so a stopped component frees its port at once.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { TlsOptions } from 'node:tls';
import type { SocketAddress } from '../../../lib/net/socket-address.js';

/** A listening server. */
export interface PromHttpServer {
  /** The bound port (the configured one, or the kernel's choice for port 0). */
  readonly port: number;
  close(): void;
}

/** Listens; resolves once bound, rejects when the address cannot be bound. */
export function listenHttp(address: SocketAddress, tls: TlsOptions | undefined, handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<PromHttpServer> {
  const server: Server = tls ? createTlsServer(tls, handle) : createServer(handle);
  server.on('clientError', (_err, socket) => socket.destroy());
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      const bound = server.address();
      resolve({
        port: bound !== null && typeof bound === 'object' ? bound.port : address.port,
        close() {
          server.close();
          server.closeAllConnections();
        },
      });
    });
  });
}
