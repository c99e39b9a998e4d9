/**
 * Requests to an HTTP Event Collector (Splunk HEC, as Vector speaks it): the URLs under `endpoint`, the fixed
 * headers, and the health check. Every request carries `Authorization: Splunk <token>` and
 * `X-Splunk-Request-Channel` (the channel UUID the collector scopes indexer acknowledgements to;
 * the neutral name `X-Siem-Request-Channel` is one no collector reads).
 */
import type { GlobalOptions } from '../../../lib/config/global.js';
import type { ProxyConfig } from '../../../lib/config/options/proxy.js';
import type { TlsConfig } from '../../../lib/config/options/tls.js';
import { type HttpService, createHttpService } from '../http/service.js';

/** The header real collectors read the channel from. */
export const CHANNEL_HEADER = 'X-Splunk-Request-Channel';

/** Where events go: `POST <endpoint>/services/collector/event`. */
export const EVENT_PATH = '/services/collector/event';
/** Where acknowledgements are asked for: `POST <endpoint>/services/collector/ack`. */
export const ACK_PATH = '/services/collector/ack';
/** The health check: `GET <endpoint>/services/collector/health/1.0`. */
export const HEALTH_PATH = '/services/collector/health/1.0';

/** `endpoint` (a trailing `/` dropped, any path prefix kept) joined with a collector path. */
export const collectorUrl = (endpoint: string, path: string): string => endpoint.replace(/\/+$/, '') + path;

/** What the HEC service is built from. */
export interface HecServiceOptions {
  readonly token: string;
  /** UUID v4, one per sink instance. */
  readonly channel: string;
  readonly tls?: TlsConfig | undefined;
  readonly proxy?: ProxyConfig | undefined;
  /** `request.headers`: they may replace `Content-Type`, never the token or the channel. */
  readonly headers?: Record<string, string> | undefined;
}

/**
 * The HTTP service with the fixed headers. `Content-Encoding` is not among them: only event bodies
 * are compressed, so the event request sets it itself.
 */
export function createHecService(o: HecServiceOptions, globals: Pick<GlobalOptions, 'proxy'>): HttpService {
  return createHttpService({
    tls: o.tls,
    proxy: o.proxy,
    globals,
    headers: [{ 'content-type': 'application/json' }, o.headers, { authorization: `Splunk ${o.token}`, [CHANNEL_HEADER]: o.channel }],
  });
}

/** Why an unhealthy collector is unhealthy, by status (Vector's HEC health check). */
const HEALTH_REASONS: Record<number, string> = { 400: 'invalid token', 503: 'queues are full' };

/**
 * As Vector checks: one `GET` of the health path with the token; 200 is healthy, 400 means an
 * invalid token, 503 full queues, anything else is unexpected. Never retried.
 */
export async function hecHealthcheck(service: HttpService, endpoint: string, timeoutMs: number): Promise<void> {
  const url = collectorUrl(endpoint, HEALTH_PATH);
  const res = await service.send({ method: 'GET', url }, AbortSignal.timeout(timeoutMs));
  if (res.status === 200) return;
  const reason = HEALTH_REASONS[res.status] ?? 'unexpected status';
  throw new Error(`health check GET ${url} answered ${res.status} (${reason})${res.body ? `: ${res.body.slice(0, 200)}` : ''}`);
}
