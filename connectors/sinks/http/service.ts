/**
 * Sends one request of the `http` sink and returns one response; it neither retries nor
 * batches (STYLE §2). Headers, auth, TLS and proxy are fixed at build time.
 */
import type { GlobalOptions } from '../../../lib/config/global.js';
import type { Compressor } from '../../../lib/net/compression.js';
import { type HttpClient, type HttpResponse, authorizationHeader, createHttpClient } from '../../../lib/net/http-client.js';
import { resolveProxy } from '../../../lib/net/proxy.js';
import type { HttpSinkConfig } from './config.js';
import type { HttpSinkRequest } from './request.js';

export interface HttpService {
  send(req: HttpSinkRequest, signal: AbortSignal): Promise<HttpResponse>;
  /** `HEAD healthcheck.uri` with the sink's auth, TLS and proxy. */
  head(uri: string, signal: AbortSignal): Promise<HttpResponse>;
  close(): Promise<void>;
}

/** The request target with URI credentials removed, and the auth they imply (reference sinks §0.4). */
export function targetOf(config: Pick<HttpSinkConfig, 'uri' | 'auth'>): { url: string; auth: HttpSinkConfig['auth'] } {
  const url = new URL(config.uri);
  if (!url.username && !url.password) return { url: config.uri, auth: config.auth };
  const auth = { strategy: 'basic' as const, user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
  url.username = '';
  url.password = '';
  return { url: url.toString(), auth };
}

/** Builds the client and the fixed request headers once. */
export function createHttpService(config: HttpSinkConfig, globals: GlobalOptions, contentType: string, compressor: Compressor): HttpService {
  const { url, auth } = targetOf(config);
  // header names are case-insensitive: later sources replace earlier ones whatever their case
  const headers: Record<string, string> = {};
  const put = (k: string, val: string) => {
    for (const old of Object.keys(headers)) if (old.toLowerCase() === k.toLowerCase()) delete headers[old];
    headers[k] = val;
  };
  put('content-type', contentType);
  if (compressor.contentEncoding) put('content-encoding', compressor.contentEncoding);
  for (const [k, val] of Object.entries(config.headers)) put(k, val);
  for (const [k, val] of Object.entries(config.request.headers)) put(k, val);
  const authHeader = auth ? authorizationHeader(auth) : undefined;
  if (authHeader) put('authorization', authHeader);
  const client: HttpClient = createHttpClient({ tls: config.tls, proxy: resolveProxy(config.proxy, globals.proxy) });
  const method = config.method.toUpperCase();
  return {
    send: (req, signal) => client.send({ url, method, headers, body: method === 'GET' || method === 'HEAD' ? undefined : req.body, signal }),
    head: (uri, signal) => client.send({ url: uri, method: 'HEAD', headers: authHeader ? { authorization: authHeader } : {}, signal }),
    close: () => client.close(),
  };
}
