/**
 * The HTTP service of the HTTP sinks: sends one request, returns one response, neither
 * retries nor batches. Fixed headers, TLS and proxy are set at build time; `sign` is the hook for
 * per-request authentication (SigV4, refreshed tokens) that must see the final method, URL and body.
 */
import type { GlobalOptions } from '../../../lib/config/global.js';
import type { ProxyConfig } from '../../../lib/config/options/proxy.js';
import type { TlsConfig } from '../../../lib/config/options/tls.js';
import { type HttpClient, type HttpResponse, createHttpClient } from '../../../lib/net/http-client.js';
import { resolveProxy } from '../../../lib/net/proxy.js';

/** One outgoing request as the signing hook sees it. */
export interface OutgoingRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer | undefined;
}

export interface HttpServiceOptions {
  readonly tls?: TlsConfig | undefined;
  readonly proxy?: ProxyConfig | undefined;
  readonly globals: Pick<GlobalOptions, 'proxy'>;
  /** Headers on every request; later keys replace earlier ones whatever their case. */
  readonly headers?: ReadonlyArray<Record<string, string> | undefined>;
  /** Adds or replaces headers of each request just before it is sent. */
  sign?(req: OutgoingRequest): Promise<Record<string, string>> | Record<string, string>;
}

export interface HttpService {
  /** Sends `body` (none for GET/HEAD) with the fixed headers plus `headers`; `maxBodyChars` raises the kept body for an answer that is parsed. */
  send(req: { method: string; url: string; body?: Buffer | undefined; headers?: Record<string, string>; maxBodyChars?: number }, signal: AbortSignal): Promise<HttpResponse>;
  close(): Promise<void>;
}

/** Merges header maps: a later key replaces an earlier one whatever its case. */
export function mergeHeaders(...maps: ReadonlyArray<Record<string, string> | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  const lower = new Map<string, string>();
  for (const m of maps) {
    if (!m) continue;
    for (const [k, val] of Object.entries(m)) {
      const old = lower.get(k.toLowerCase());
      if (old !== undefined) delete out[old];
      lower.set(k.toLowerCase(), k);
      out[k] = val;
    }
  }
  return out;
}

/** Builds the client (keep-alive pool, TLS, proxy) and the fixed headers once. */
export function createHttpService(opts: HttpServiceOptions): HttpService {
  const client: HttpClient = createHttpClient({ tls: opts.tls, proxy: resolveProxy(opts.proxy, opts.globals.proxy) });
  const fixed = mergeHeaders(...(opts.headers ?? []));
  const sign = opts.sign;
  return {
    async send(req, signal) {
      const method = req.method.toUpperCase();
      const body = method === 'GET' || method === 'HEAD' ? undefined : req.body;
      let headers = req.headers ? mergeHeaders(fixed, req.headers) : fixed;
      if (sign) headers = mergeHeaders(headers, await sign({ method, url: req.url, headers, body }));
      return client.send({ url: req.url, method, headers, body, signal, ...(req.maxBodyChars !== undefined ? { maxBodyChars: req.maxBodyChars } : {}) });
    },
    close: () => client.close(),
  };
}
