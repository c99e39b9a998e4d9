/**
 * The HTTP answer classification shared by every HTTP sink (Vector's rule): what is
 * retried, what is rejected, and `HttpStatusError`, the error a non-2xx answer becomes.
 */
import { TransportError } from '../../../lib/net/http-client.js';
import type { Verdict } from '../request-sink.js';

export type Classification = 'ok' | 'retry' | 'reject';

/** 2xx ok; 429 and 5xx except 501 retried; everything else (1xx, 3xx, 4xx incl. 408, 501) rejected. */
export function classifyStatus(status: number): Classification {
  if (status >= 200 && status < 300) return 'ok';
  if (status === 429 || (status >= 500 && status !== 501)) return 'retry';
  return 'reject';
}

/** A response that was not 2xx. */
export class HttpStatusError extends Error {
  override readonly name = 'HttpStatusError';
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`HTTP ${status}${body ? `: ${body.slice(0, 200)}` : ''}`);
  }
}

/**
 * The request-sink verdict of an HTTP answer by its status alone. Events of a request given up
 * end `errored` after a 5xx or 429 (transient, 501 included) and `rejected` after any other status.
 */
export function statusVerdict<R>(res: { readonly status: number; readonly body: string }): Verdict<R> {
  const c = classifyStatus(res.status);
  if (c === 'ok') return { kind: 'ok' };
  const status = res.status >= 500 || res.status === 429 ? 'errored' : 'rejected';
  return { kind: c, error: new HttpStatusError(res.status, res.body), status };
}

/** Connection refused, reset, TLS and DNS failures are worth another attempt. */
export const isRetriableTransportError = (err: unknown): boolean => err instanceof TransportError;
