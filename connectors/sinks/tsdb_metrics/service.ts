/** Where the `tsdb_metrics` sink writes and checks health, per generation. */
import type { GlobalOptions } from '../../../lib/config/global.js';
import { type HttpService, createHttpService } from '../../shared/http/service.js';
import { type TsdbMetricsConfig, generationOf } from './config.js';
import { PRECISION_PARAM, type Precision } from './line-protocol.js';

/** `endpoint` joined with `path` by exactly one `/`. */
export function joinEndpoint(endpoint: string, path: string): string {
  return endpoint.replace(/\/+$/, '') + '/' + path.replace(/^\/+/, '');
}

/**
 * The write URL. Generation 1: `/write` with consistency, db, rp, p, u (those set, in this order)
 * and precision; generation 2: `/api/v2/write` with org, bucket and precision. Values are
 * form-urlencoded.
 */
export function writeUrl(c: TsdbMetricsConfig, precision: Precision): string {
  const q = new URLSearchParams();
  const gen = generationOf(c);
  if (gen === 1) {
    if (c.consistency !== undefined) q.set('consistency', c.consistency);
    q.set('db', c.database!);
    if (c.retention_policy_name !== undefined) q.set('rp', c.retention_policy_name);
    if (c.password !== undefined) q.set('p', c.password);
    if (c.username !== undefined) q.set('u', c.username);
  } else {
    q.set('org', c.org!);
    q.set('bucket', c.bucket!);
  }
  q.set('precision', PRECISION_PARAM[gen][precision]);
  return joinEndpoint(c.endpoint, gen === 1 ? 'write' : 'api/v2/write') + '?' + q.toString();
}

/** Generation 1 answers `/ping`; generation 2 reports readiness on `/health`. */
export const healthUrl = (c: TsdbMetricsConfig): string => joinEndpoint(c.endpoint, generationOf(c) === 1 ? 'ping' : 'health');

/**
 * The HTTP service with the fixed headers: `Content-Type: text/plain`, `request.headers`, and for
 * generation 2 writes `Authorization: Token <token>` (generation 1 credentials travel as `u` and
 * `p`; the health check sends no credentials).
 */
export function createTsdbService(c: TsdbMetricsConfig, globals: GlobalOptions, purpose: 'write' | 'health' = 'write'): HttpService {
  const token = purpose === 'write' && c.token !== undefined ? { authorization: `Token ${c.token}` } : undefined;
  return createHttpService({ tls: c.tls, proxy: c.proxy, globals, headers: [{ 'content-type': 'text/plain' }, c.request.headers, token] });
}
