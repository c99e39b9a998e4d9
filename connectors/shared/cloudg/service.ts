/**
 * The HTTP side every `cloudg_*` sink shares: the shared HTTP service with the credentials'
 * header signed onto each attempt, the answer rule (the HTTP sinks' rule, plus 401: the token was
 * refused, so it is dropped and the request tried again with a fresh one) and the health check.
 */
import type { GlobalOptions } from '../../../lib/config/global.js';
import type { ProxyConfig } from '../../../lib/config/options/proxy.js';
import type { TlsConfig } from '../../../lib/config/options/tls.js';
import { resolveProxy } from '../../../lib/net/proxy.js';
import { type HttpService, createHttpService } from '../http/service.js';
import { HttpStatusError, isRetriableTransportError, statusVerdict } from '../http/status.js';
import type { Verdict } from '../request-sink.js';
import { type CloudgAuth, CredentialsError, type TokenTransport } from './auth.js';

/** The service of one sink; every attempt carries a current token (none with an API key). */
export function createCloudgService(
  auth: CloudgAuth,
  opts: { tls?: TlsConfig | undefined; proxy?: ProxyConfig | undefined; headers?: Record<string, string> | undefined },
  globals: Pick<GlobalOptions, 'proxy'>,
): HttpService {
  return createHttpService({ tls: opts.tls, proxy: opts.proxy, globals, headers: [opts.headers], sign: () => auth.headers() });
}

/** Token requests connect as the sink does: its `tls` and proxy settings. */
export const tokenTransport = (config: { tls?: TlsConfig | undefined; proxy?: ProxyConfig | undefined }, globals: Pick<GlobalOptions, 'proxy'>): TokenTransport => ({
  tls: config.tls,
  proxy: resolveProxy(config.proxy, globals.proxy),
});

/** The verdict of an answer: the HTTP sinks' status rule, except that a 401 drops the token and is retried. */
export function cloudgVerdict<R>(auth: CloudgAuth): (res: { readonly status: number; readonly body: string }) => Verdict<R> {
  return (res) => {
    if (res.status === 401 && auth.source !== 'api_key') {
      auth.invalidate();
      return { kind: 'retry', error: new HttpStatusError(res.status, res.body), status: 'rejected' };
    }
    return statusVerdict(res);
  };
}

/**
 * Transport errors, and a token that could not be fetched for now (the token endpoint may come
 * back), are retried; credentials the token endpoint refused for good are not, so their events are
 * rejected and a shutdown does not wait on an exchange that cannot succeed.
 */
export const isRetriableCloudgError = (err: unknown): boolean => (err instanceof CredentialsError ? !err.permanent : isRetriableTransportError(err));

/**
 * As Vector checks: one request, never retried, after the credentials gave a token.
 * 200 healthy; 403 "forbidden"; 404 `notFound` ("topic not found", "bucket not found").
 */
export async function cloudgHealthcheck(
  service: HttpService,
  auth: CloudgAuth,
  req: { method: 'GET' | 'HEAD'; url: string; notFound: string; timeoutMs: number },
): Promise<void> {
  await auth.check();
  const res = await service.send({ method: req.method, url: auth.url(req.url) }, AbortSignal.timeout(req.timeoutMs));
  if (res.status === 200) return;
  const detail = res.body ? `: ${res.body.slice(0, 200)}` : '';
  if (res.status === 403) throw new Error(`forbidden: ${req.method} ${req.url} answered 403${detail}`);
  if (res.status === 404) throw new Error(`${req.notFound}: ${req.method} ${req.url} answered 404${detail}`);
  throw new Error(`unexpected status ${res.status}: ${req.method} ${req.url}${detail}`);
}
