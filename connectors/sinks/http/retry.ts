/**
 * Outcome classification of the `http` sink (reference sinks §0.4, §13): what is retried, what
 * is rejected, and the final delivery status of a failed request.
 */
import { TimeoutError } from 'rxjs';
import type { DeliveryStatus } from '../../../lib/event.js';
import { TransportError } from '../../../lib/net/http-client.js';

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

/** Transport errors, attempt timeouts and Retry-classified statuses are retried. */
export function isRetriable(err: unknown): boolean {
  if (err instanceof HttpStatusError) return classifyStatus(err.status) === 'retry';
  return err instanceof TransportError || err instanceof TimeoutError;
}

/**
 * Final status of a request that failed: 5xx, throttling, transport and timeouts are `errored`
 * (transient), any other status `rejected` (permanent).
 */
export function failedStatus(err: unknown): DeliveryStatus {
  if (err instanceof HttpStatusError) return err.status >= 500 || err.status === 429 ? 'errored' : 'rejected';
  return err instanceof TransportError || err instanceof TimeoutError ? 'errored' : 'rejected';
}
