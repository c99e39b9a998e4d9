/**
 * The one outbound HTTP client of the HTTP-based sinks and sources: undici's `request()` on keep-alive
 * agents, TLS per the `tls.*` options and proxies per {@link resolveProxy}. Through an `http://` proxy an
 * `http://` request is forwarded in absolute form (`GET http://host:port/path`) and an `https://` one is
 * tunnelled with CONNECT, as Vector does: a stock forward proxy (squid, tinyproxy's packaged config)
 * allows CONNECT to TLS ports only, so a tunnel to a plain-HTTP port is refused. It sends one request and returns one
 * response: no retries, no timeouts (the sink's retry layer owns both), no redirects. The body
 * Buffer goes to the socket as it is: no WHATWG Request around it, so it is never copied.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { type ConnectionOptions, connect as tlsConnect } from 'node:tls';
import { Agent, type Dispatcher, ProxyAgent, buildConnector } from 'undici';
import type { TlsConfig } from '../config/options/tls.js';
import { type ProxySettings, proxyFor } from './proxy.js';
import { tlsConnectOptions } from './tls.js';

/** `weir/<version>`, the default User-Agent (Vector sends `Vector/<version>`). */
export const USER_AGENT = `weir/${packageVersion()}`;

function packageVersion(): string {
  for (const rel of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'weir' && pkg.version) return pkg.version;
    } catch {
      // try the next layout (sources vs dist/)
    }
  }
  return '0.0.0';
}

export interface HttpClientOptions {
  readonly tls?: TlsConfig | undefined;
  readonly proxy?: ProxySettings | undefined;
  /** Sent with every request unless the request sets the same header. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface HttpRequest {
  readonly url: string;
  readonly method: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Buffer | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Longest body text kept (default {@link MAX_BODY_TEXT}); a client that parses the body raises it. */
  readonly maxBodyChars?: number;
}

/** A response with its body read (bounded), so the connection returns to the pool at once. */
export interface HttpResponse {
  readonly status: number;
  readonly headers: Headers;
  /** The first {@link MAX_BODY_TEXT} characters of the body, for logs and protocol replies. */
  readonly body: string;
}

export const MAX_BODY_TEXT = 64 * 1024;

export interface HttpClient {
  send(req: HttpRequest): Promise<HttpResponse>;
  /** Closes pooled connections. */
  close(): Promise<void>;
}

/** An error before any response: connection refused or reset, TLS failure, abort. Retriable. */
export class TransportError extends Error {
  override readonly name = 'TransportError';
  constructor(
    message: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}

/** Innermost cause message of fetch's wrapped errors (`fetch failed` says nothing). */
function causeMessage(err: unknown): string {
  let e = err as { message?: string; cause?: unknown; code?: string } | undefined;
  let msg = e?.message ?? String(err);
  while (e && e.cause && typeof e.cause === 'object') {
    e = e.cause as typeof e;
    if (e?.message) msg = e.code ? `${e.message} (${e.code})` : e.message;
  }
  return msg;
}

/** undici's connector pins ALPN to http/1.1; with `tls.alpn_protocols` set, TLS sockets are made here. */
function connector(tls: ConnectionOptions): buildConnector.connector {
  const base = buildConnector(tls as buildConnector.BuildOptions);
  const alpn = tls.ALPNProtocols;
  if (!alpn) return base;
  return (opts, callback) => {
    if (opts.protocol !== 'https:') return base(opts, callback);
    const servername = tls.servername ?? opts.servername ?? (isIP(opts.hostname) ? undefined : opts.hostname);
    const socket = tlsConnect({
      ...tls,
      ALPNProtocols: alpn,
      host: opts.hostname,
      port: Number(opts.port) || 443,
      ...(servername ? { servername } : {}),
      ...(opts.httpSocket ? { socket: opts.httpSocket as import('node:net').Socket } : {}),
    });
    socket.setKeepAlive(true, 60_000).setNoDelay(true);
    let done = false;
    const timer = setTimeout(() => socket.destroy(new Error('connect timeout')), CONNECT_TIMEOUT_MS);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      if (!done) ((done = true), callback(null, socket));
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      if (!done) ((done = true), callback(err, null));
    });
    return socket;
  };
}

/** undici's default connect timeout. */
const CONNECT_TIMEOUT_MS = 10_000;

/** Builds a client; TLS files are read here, so bad settings fail at build time. */
export function createHttpClient(opts: HttpClientOptions = {}): HttpClient {
  const connect: ConnectionOptions = tlsConnectOptions(opts.tls);
  const direct = new Agent({ connect: connector(connect) });
  const proxied = new Map<string, ProxyAgent>();
  const dispatcherFor = (url: URL): Dispatcher => {
    const proxy = proxyFor(opts.proxy, url);
    if (proxy === undefined) return direct;
    let agent = proxied.get(proxy);
    if (!agent) {
      // proxyTunnel false: http targets are forwarded, https targets still go through a CONNECT tunnel
      agent = new ProxyAgent({ uri: proxy, requestTls: connect as ProxyAgent.Options['requestTls'], proxyTunnel: false });
      proxied.set(proxy, agent);
    }
    return agent;
  };
  /** Default headers by lower-case name; a request's own header of any case replaces its default. */
  const defaults = lowerKeys({ 'user-agent': USER_AGENT, 'accept-encoding': 'identity', ...opts.headers });
  return {
    async send(req) {
      let url: URL;
      let res: Dispatcher.ResponseData;
      try {
        url = new URL(req.url);
        res = await dispatcherFor(url).request({
          origin: url.origin,
          path: url.pathname + url.search,
          method: req.method as Dispatcher.HttpMethod,
          headers: req.headers ? { ...defaults, ...lowerKeys(req.headers) } : defaults,
          body: req.body ?? null,
          signal: req.signal ?? null,
        });
      } catch (err) {
        throw new TransportError(causeMessage(err), err);
      }
      let text = '';
      try {
        if (req.method === 'HEAD') await res.body.dump();
        else text = await res.body.text();
      } catch (err) {
        throw new TransportError(`reading the response body: ${causeMessage(err)}`, err);
      }
      const max = req.maxBodyChars ?? MAX_BODY_TEXT;
      return { status: res.statusCode, headers: toHeaders(res.headers), body: text.length > max ? text.slice(0, max) : text };
    },
    async close() {
      await Promise.all([direct.close(), ...[...proxied.values()].map((a) => a.close())]);
    },
  };
}

/** A header map with lower-case names (header names are case-insensitive; the last of a name wins). */
function lowerKeys(h: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k in h) out[k.toLowerCase()] = h[k]!;
  return out;
}

/** undici's raw response headers as WHATWG Headers (what callers read with `get`). */
function toHeaders(raw: Dispatcher.ResponseData['headers']): Headers {
  const h = new Headers();
  for (const k in raw) {
    const v = raw[k];
    if (Array.isArray(v)) for (const x of v) h.append(k, x);
    else if (v !== undefined) h.append(k, v);
  }
  return h;
}

/** `Authorization` header for `auth.strategy` basic or bearer (`Basic base64(user:password)`, `Bearer <token>`). */
export function authorizationHeader(auth: { strategy: 'basic'; user: string; password?: string | undefined } | { strategy: 'bearer'; token: string }): string {
  if (auth.strategy === 'basic') return `Basic ${Buffer.from(`${auth.user}:${auth.password ?? ''}`).toString('base64')}`;
  return `Bearer ${auth.token}`;
}
