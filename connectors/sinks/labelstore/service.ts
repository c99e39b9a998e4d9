/** The `labelstore` sink's service: push URL, health URLs and fixed headers on the shared HTTP service. */
import type { GlobalOptions } from '../../../lib/config/global.js';
import { authHeader, targetOf } from '../../shared/http/auth.js';
import { type HttpService, createHttpService } from '../../shared/http/service.js';
import type { LabelstoreConfig } from './config.js';

/** `base` with `path` appended, exactly one `/` between; the query of `base` is kept. */
export function joinUrl(base: string, path: string): string {
  const url = new URL(base);
  const left = url.pathname.replace(/\/+$/, '');
  const right = path.replace(/^\/+/, '');
  url.pathname = `${left}/${right}`;
  return url.toString();
}

/** Where pushes go and the health check asks (endpoint credentials removed), and the Authorization header. */
export function labelstoreTarget(config: Pick<LabelstoreConfig, 'endpoint' | 'path' | 'auth'>): { push: string; ready: string; root: string; authorization: string | undefined } {
  const { url, auth } = targetOf(config.endpoint, config.auth);
  return { push: joinUrl(url, config.path), ready: joinUrl(url, '/ready'), root: joinUrl(url, '/'), authorization: authHeader(auth) };
}

/** The HTTP service with auth and, for pushes, the body's content type and encoding on every request. */
export function createLabelstoreService(
  config: LabelstoreConfig,
  globals: GlobalOptions,
  body?: { contentType: string; contentEncoding: string | undefined },
): HttpService {
  const { authorization } = labelstoreTarget(config);
  return createHttpService({
    tls: config.tls,
    proxy: config.proxy,
    globals,
    headers: [
      body && { 'content-type': body.contentType, ...(body.contentEncoding ? { 'content-encoding': body.contentEncoding } : {}) },
      config.request.headers,
      authorization ? { authorization } : undefined,
    ],
  });
}
