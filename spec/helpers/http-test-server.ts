/**
 * A programmable HTTP(S) destination for sink tests on 127.0.0.1, port 0: records every request
 * (body decompressed), and answers per a script: a status, a connection reset, or a stall.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { type ServerOptions as HttpsOptions, createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { gunzipSync, inflateSync } from 'node:zlib';

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  /** Body as received (possibly compressed). */
  readonly raw: Buffer;
  /** Body after Content-Encoding was undone. */
  readonly body: string;
  /** Client certificate subject CN (HTTPS with requestCert). */
  readonly peerCn: string | undefined;
  /** Protocol negotiated by ALPN (HTTPS), false when none. */
  readonly alpn: string | false | undefined;
}

/** What to do with request number `n` (0-based). */
export type Reply = number | { status: number; body?: string; delayMs?: number } | 'reset' | 'stall';

export interface TestServer {
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  /** Requests currently being handled (for concurrency measurements). */
  readonly inFlight: number;
  readonly maxInFlight: number;
  /** TCP connections accepted so far. */
  readonly connections: number;
  reply: (req: RecordedRequest, n: number, inFlight: number) => Reply;
  close(): Promise<void>;
}

/** Starts a server; `tls` makes it HTTPS; `port` 0 takes a free one (a fixed one brings a stopped server back where it was). */
export async function startTestServer(reply: TestServer['reply'] = () => 200, tls?: HttpsOptions, port = 0): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const stalled = new Set<ServerResponse>();
  let n = 0;
  const state = {
    url: '',
    port: 0,
    requests: [] as RecordedRequest[],
    inFlight: 0,
    maxInFlight: 0,
    connections: 0,
    reply,
    close: async () => {},
  };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const enc = req.headers['content-encoding'];
      const body = (enc === 'gzip' ? gunzipSync(raw) : enc === 'deflate' ? inflateSync(raw) : raw).toString('utf8');
      const sock = req.socket as Socket & { getPeerCertificate?: () => { subject?: { CN?: string } }; alpnProtocol?: string | false };
      const peer = sock.getPeerCertificate?.();
      const rec: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, raw, body, peerCn: peer?.subject?.CN, alpn: sock.alpnProtocol };
      state.requests.push(rec);
      state.inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      const r = state.reply(rec, n++, state.inFlight);
      const finish = (status: number, text = '') => {
        state.inFlight--;
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(text);
      };
      if (r === 'reset') {
        state.inFlight--;
        req.socket.destroy();
      } else if (r === 'stall') {
        stalled.add(res);
        res.on('close', () => {
          if (stalled.delete(res)) state.inFlight--;
        });
      } else if (typeof r === 'number') finish(r);
      else if (r.delayMs) setTimeout(() => finish(r.status, r.body), r.delayMs);
      else finish(r.status, r.body);
    });
  };
  const server: Server = tls ? createHttpsServer(tls, handler) : createServer(handler);
  server.on('connection', (s: Socket) => {
    state.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('secureConnection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  state.url = `${tls ? 'https' : 'http'}://127.0.0.1:${state.port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return state;
}

/** Every event body line of ndjson requests, parsed. */
export function ndjsonEvents(requests: readonly RecordedRequest[]): Record<string, unknown>[] {
  return requests.flatMap((r) => (r.body === '' ? [] : r.body.split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)));
}
