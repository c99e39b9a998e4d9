/**
 * Shared plumbing of the in-repo protocol peers: a loopback HTTP server (127.0.0.1, port 0) that
 * reads whole bodies, records every request, and lets a test inject a fault (a status, a
 * connection reset) before the protocol handler sees the request. The peers differ only in what
 * they accept; this file holds none of their protocol rules.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gunzipSync, inflateSync } from 'node:zlib';

/** One request as the peer received it. */
export interface PeerRequest {
  readonly method: string;
  /** The path without the query string. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
  /** The body as sent (still compressed). */
  readonly raw: Buffer;
}

/** What the protocol handler answers. */
export interface PeerResponse {
  readonly status: number;
  readonly body?: string | Buffer;
  readonly headers?: Readonly<Record<string, string>>;
}

/** An injected fault: a status (with an optional body) answered instead of the handler, a reset socket, or no answer at all (`stall`, until the client gives up or the peer closes). */
export type Fault = number | { status: number; body?: string; headers?: Record<string, string> } | 'reset' | 'stall';

/** The server side every peer shares. */
export interface HttpPeer {
  readonly url: string;
  readonly port: number;
  /** Every request received, faults included, in arrival order. */
  readonly requests: PeerRequest[];
  /** Consulted first for every request; a returned fault replaces the handler's answer. */
  fault: ((req: PeerRequest, n: number) => Fault | undefined) | undefined;
  /** Answers the next `times` requests with `status` (429/5xx tests), then behaves again. */
  failNext(status: number, times?: number, body?: string): void;
  close(): Promise<void>;
}

/** Starts a peer around a protocol handler; a handler that throws answers 500 with the message. */
export async function startHttpPeer(handle: (req: PeerRequest) => PeerResponse | Promise<PeerResponse>): Promise<HttpPeer> {
  const sockets = new Set<Socket>();
  const queued: Fault[] = [];
  let n = 0;
  const requests: PeerRequest[] = [];
  const answer = (res: ServerResponse, r: PeerResponse) => {
    const body = r.body ?? '';
    res.writeHead(r.status, { 'content-length': String(Buffer.byteLength(body)), ...r.headers });
    res.end(body);
  };
  const peer: HttpPeer = {
    url: '',
    port: 0,
    requests,
    fault: undefined,
    failNext(status, times = 1, body) {
      for (let i = 0; i < times; i++) queued.push(body === undefined ? status : { status, body });
    },
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://peer');
      const rec: PeerRequest = { method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, raw: Buffer.concat(chunks) };
      requests.push(rec);
      const fault = queued.shift() ?? peer.fault?.(rec, n);
      n++;
      if (fault === 'reset') {
        req.socket.destroy();
        return;
      }
      if (fault === 'stall') return;
      if (fault !== undefined) {
        answer(res, typeof fault === 'number' ? { status: fault } : fault);
        return;
      }
      Promise.resolve()
        .then(() => handle(rec))
        .then(
          (r) => answer(res, r),
          (err: unknown) => answer(res, { status: 500, body: String((err as Error)?.message ?? err) }),
        );
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  Object.assign(peer, {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  });
  return peer;
}

/** Result of undoing a Content-Encoding: the bytes, or why they could not be read. */
export type Decoded = { ok: true; body: Buffer } | { ok: false; unsupported: boolean; message: string };

/** Undoes `Content-Encoding` when it is one of `accepted` (identity always is). */
export function decodeBody(req: PeerRequest, accepted: readonly ('gzip' | 'deflate')[]): Decoded {
  const enc = String(req.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (enc === '' || enc === 'identity') return { ok: true, body: req.raw };
  if (!(accepted as readonly string[]).includes(enc)) return { ok: false, unsupported: true, message: `Content-Encoding ${enc} is not supported` };
  try {
    return { ok: true, body: enc === 'gzip' ? gunzipSync(req.raw) : inflateSync(req.raw) };
  } catch (err) {
    return { ok: false, unsupported: false, message: `${enc}: ${(err as Error).message}` };
  }
}

/** A JSON answer with the given status. */
export const json = (status: number, value: unknown, headers: Record<string, string> = {}): PeerResponse => ({
  status,
  body: JSON.stringify(value),
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
});

/** A plain-text answer (Go servers end `http.Error` bodies with a newline). */
export const text = (status: number, message: string): PeerResponse => ({
  status,
  body: `${message}\n`,
  headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' },
});
