/**
 * A recording, fault-injecting proxy in front of the queue emulator (fauxqs accepts every call
 * and never fails an entry on its own). Each request is parsed (JSON 1.0, `X-Amz-Target:
 * AmazonSQS.<Operation>`) and recorded; a test's `fault` hook decides, per request, to answer
 * throttling or a 5xx, to reset the connection, to stall, or to let a SendMessageBatch through
 * with some entries held back and reported failed by the service (`SenderFault: false`).
 * With `sigv4` set it checks every request's signature (the emulator checks none) and answers a
 * bad one as the service does.
 */
import { type IncomingMessage, type RequestListener, type Server, type ServerResponse, createServer, request as httpRequest } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { type SigV4Options, verifySigV4 } from './sigv4.js';

/** One request as the proxy saw it. */
export interface SqsCall {
  /** `SendMessageBatch`, `ReceiveMessage`, … */
  readonly operation: string;
  readonly body: Record<string, unknown>;
  readonly headers: IncomingMessage['headers'];
}

/** What to do with one request. */
export type SqsFault =
  | 'throttle'
  | 500
  | 503
  | 'reset'
  | 'stall'
  /** Forward without the entries of these ids and answer them as failed by the service. */
  | { readonly holdBack: readonly string[] };

export interface SqsProxy {
  readonly url: string;
  readonly calls: SqsCall[];
  /** Consulted for every request; `n` counts the calls of that operation so far (0-based). */
  fault: ((call: SqsCall, n: number) => SqsFault | undefined) | undefined;
  /** Forgets the recorded calls, the per-operation counts and the fault hook. */
  reset(): void;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
};

/** Starts the proxy on 127.0.0.1 in front of `target` (`http://127.0.0.1:PORT`). */
export async function startSqsProxy(
  target: string,
  /** `tls`: serve HTTPS with this identity; `ca` + `requestCert` ask clients for a certificate signed by `ca`. */
  opts: { sigv4?: SigV4Options; tls?: { key: Buffer; cert: Buffer; ca?: Buffer; requestCert?: boolean } } = {},
): Promise<SqsProxy> {
  const upstream = new URL(target);
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  const stalled = new Set<ServerResponse>();
  const forward = (req: IncomingMessage, raw: Buffer): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const headers = { ...req.headers, host: upstream.host, 'content-length': String(raw.length) };
      const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      out.on('error', reject);
      out.end(raw);
    });
  const proxy: SqsProxy = {
    url: '',
    calls: [],
    fault: undefined,
    reset: () => {
      proxy.calls.length = 0;
      counts.clear();
      proxy.fault = undefined;
    },
    close: async () => {
      for (const r of stalled) r.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const handler: RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(chunks);
        const operation = String(req.headers['x-amz-target'] ?? '').replace(/^AmazonSQS\./, '');
        let body: Record<string, unknown> = {};
        try {
          body = raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {};
        } catch {
          // not JSON: forwarded as is
        }
        const call: SqsCall = { operation, body, headers: req.headers };
        proxy.calls.push(call);
        if (opts.sigv4) {
          const v = verifySigV4({ method: req.method ?? 'POST', url: req.url ?? '/', headers: req.headers, body: raw }, opts.sigv4);
          if (!v.ok) return json(res, v.status, { __type: `com.amazonaws.sqs#${v.code}`, message: v.message }, { 'x-amzn-query-error': `${v.code};Sender` });
        }
        const n = counts.get(operation) ?? 0;
        counts.set(operation, n + 1);
        const fault = proxy.fault?.(call, n);
        if (fault === 'throttle') return json(res, 400, { __type: 'com.amazonaws.sqs#ThrottlingException', message: 'Rate exceeded' }, { 'x-amzn-query-error': 'ThrottlingException;Sender' });
        if (fault === 500 || fault === 503) return json(res, fault, { __type: 'com.amazonaws.sqs#InternalError', message: 'internal error' });
        if (fault === 'reset') return req.socket.destroy();
        if (fault === 'stall') return void stalled.add(res);
        let sent = raw;
        let held: { Id: string }[] = [];
        if (fault && typeof fault === 'object' && Array.isArray(body.Entries)) {
          const entries = body.Entries as { Id: string }[];
          held = entries.filter((e) => fault.holdBack.includes(e.Id));
          sent = Buffer.from(JSON.stringify({ ...body, Entries: entries.filter((e) => !fault.holdBack.includes(e.Id)) }), 'utf8');
        }
        const answer = await forward(req, sent);
        if (held.length === 0) {
          res.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.length) });
          return res.end(answer.body);
        }
        const parsed = JSON.parse(answer.body.toString('utf8')) as { Successful?: unknown[]; Failed?: unknown[] };
        const failed = [...(parsed.Failed ?? []), ...held.map((e) => ({ Id: e.Id, SenderFault: false, Code: 'InternalError', Message: 'held back by the test proxy' }))];
        json(res, answer.status, { ...parsed, Failed: failed });
      })().catch(() => res.destroy());
    });
  };
  const server = (opts.tls ? createHttpsServer({ ...opts.tls, rejectUnauthorized: !!opts.tls.requestCert }, handler) : createServer(handler)) as Server;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  (proxy as { url: string }).url = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
