/** The `http` sink's service: its target, method and fixed headers on the shared HTTP service. */
import type { GlobalOptions } from '../../../lib/config/global.js';
import type { Compressor } from '../../../lib/net/compression.js';
import { authHeader, targetOf } from '../../shared/http/auth.js';
import { type HttpService, createHttpService } from '../../shared/http/service.js';
import type { HttpSinkConfig } from './config.js';

/** The URLs requests go to (URI credentials removed: only `uri` may carry them) and the Authorization header, if any. */
export function httpTarget(config: Pick<HttpSinkConfig, 'uri' | 'routing' | 'auth'>): { urls: string[]; authorization: string | undefined } {
  if (config.uri === undefined) return { urls: [...(config.routing?.endpoints ?? [])], authorization: authHeader(config.auth) };
  const { url, auth } = targetOf(config.uri, config.auth);
  return { urls: [url], authorization: authHeader(auth) };
}

/** Headers in order of precedence: content type and encoding, `headers`, `request.headers`, auth. */
export function createSinkHttpService(config: HttpSinkConfig, globals: GlobalOptions, contentType: string, compressor: Compressor): HttpService {
  const { authorization } = httpTarget(config);
  return createHttpService({
    tls: config.tls,
    proxy: config.proxy,
    globals,
    headers: [
      { 'content-type': contentType, ...(compressor.contentEncoding ? { 'content-encoding': compressor.contentEncoding } : {}) },
      config.headers,
      config.request.headers,
      authorization ? { authorization } : undefined,
    ],
  });
}
