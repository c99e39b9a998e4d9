/**
 * Keep-alive Node agents for the SDK's `NodeHttpHandler`, with the component's TLS settings and
 * proxy (`tls`, `proxy`, and the environment rules of lib/net/proxy.ts). A proxied
 * connection is a CONNECT tunnel for http and https targets alike, as the http sinks' client does.
 */
import { Agent as HttpAgent, type AgentOptions, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Socket } from 'node:net';
import { type ConnectionOptions, connect as tlsConnect } from 'node:tls';
import type { Duplex } from 'node:stream';
import { type ProxySettings, proxyFor } from '../../../lib/net/proxy.js';

type Callback = (err: Error | null, socket?: Duplex) => void;
interface ConnectOpts {
  host?: string | null;
  hostname?: string | null;
  port?: number | string | null;
  servername?: string;
}

/** Opens a CONNECT tunnel to `host:port` through `proxy`; calls back with the raw socket. */
function tunnel(proxy: string, host: string, port: number, callback: (err: Error | null, socket?: Socket) => void): void {
  const p = new URL(proxy);
  const headers: Record<string, string> = { host: `${host}:${port}` };
  if (p.username) headers['proxy-authorization'] = `Basic ${Buffer.from(`${decodeURIComponent(p.username)}:${decodeURIComponent(p.password)}`).toString('base64')}`;
  const req = httpRequest({ host: p.hostname, port: Number(p.port) || 80, method: 'CONNECT', path: `${host}:${port}`, headers, agent: false });
  req.once('connect', (res, socket) => {
    if (res.statusCode !== 200) {
      socket.destroy();
      callback(new Error(`proxy ${p.host} refused CONNECT ${host}:${port}: ${res.statusCode}`));
      return;
    }
    callback(null, socket);
  });
  req.once('error', (err) => callback(new Error(`proxy ${p.host}: ${err.message}`)));
  req.end();
}

const hostOf = (o: ConnectOpts): string => (o.hostname ?? o.host ?? 'localhost').replace(/^\[|\]$/g, '');

/** The http and https agents of one component. */
export function cloudwAgents(tls: ConnectionOptions, proxy: ProxySettings | undefined): { httpAgent: HttpAgent; httpsAgent: HttpsAgent } {
  const base: AgentOptions = { keepAlive: true, keepAliveMsecs: 60_000 };
  const httpAgent = new HttpAgent(base);
  const httpsAgent = new HttpsAgent({ ...base, ...tls });
  if (proxy) {
    const plainCreate = httpAgent.createConnection.bind(httpAgent);
    httpAgent.createConnection = ((opts: ConnectOpts, callback: Callback) => {
      const host = hostOf(opts);
      const port = Number(opts.port) || 80;
      const via = proxyFor(proxy, new URL(`http://${host.includes(':') ? `[${host}]` : host}:${port}`));
      if (via === undefined) return plainCreate(opts as never, callback as never);
      tunnel(via, host, port, callback);
      return undefined;
    }) as unknown as typeof httpAgent.createConnection;
    httpsAgent.createConnection = ((opts: ConnectOpts & ConnectionOptions, callback: Callback) => {
      const host = hostOf(opts);
      const port = Number(opts.port) || 443;
      const via = proxyFor(proxy, new URL(`https://${host.includes(':') ? `[${host}]` : host}:${port}`));
      if (via === undefined) return tlsConnect({ ...opts, host, port } as ConnectionOptions);
      tunnel(via, host, port, (err, socket) => {
        if (err || !socket) return callback(err ?? new Error('no tunnel'));
        const secure = tlsConnect({ ...opts, socket, servername: opts.servername ?? host } as ConnectionOptions);
        secure.once('secureConnect', () => callback(null, secure));
        secure.once('error', (e) => callback(e));
      });
      return undefined;
    }) as unknown as typeof httpsAgent.createConnection;
  }
  return { httpAgent, httpsAgent };
}
