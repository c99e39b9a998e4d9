/** A TCP (or unix socket) receiver for the socket sink specs: records what arrives, counts connections. */
import { type AddressInfo, type Server, type Socket, createServer } from 'node:net';

export interface Receiver {
  server: Server;
  port: number;
  data: () => string;
  connections: number;
  sockets: Set<Socket>;
  close(): Promise<void>;
}

export function receiver(listenOn: number | string = 0): Promise<Receiver> {
  let data = '';
  const sockets = new Set<Socket>();
  const r = { data: () => data, connections: 0, sockets } as Receiver;
  const server = createServer((s) => {
    r.connections++;
    sockets.add(s);
    s.on('data', (d: Buffer) => (data += d.toString('latin1')));
    s.on('close', () => sockets.delete(s));
  });
  r.server = server;
  r.close = () =>
    new Promise((res) => {
      for (const s of sockets) s.destroy();
      server.close(() => res());
    });
  return new Promise((resolve) =>
    (typeof listenOn === 'string' ? server.listen(listenOn) : server.listen(listenOn, '127.0.0.1')).once('listening', () => {
      r.port = typeof listenOn === 'string' ? 0 : (server.address() as AddressInfo).port;
      resolve(r);
    }),
  );
}
