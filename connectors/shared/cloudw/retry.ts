/**
 * Retry classification of `cloudw_*` errors (as in Vector): timeouts and connection
 * failures, an `x-amz-retry-after` header, 5xx, 429 and throttling codes are retried; other 4xx
 * answers are not. Errors of unknown shape are retried.
 */
import { CredentialsError } from './credentials.js';

/** Error codes that mean "slow down" whatever their HTTP status. */
export const THROTTLING_CODES: ReadonlySet<string> = new Set([
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'RequestThrottledException',
  'TooManyRequestsException',
  'ProvisionedThroughputExceededException',
  'TransactionInProgressException',
  'RequestLimitExceeded',
  'BandwidthLimitExceeded',
  'LimitExceededException',
  'RequestThrottled',
  'SlowDown',
  'PriorRequestNotComplete',
  'EC2ThrottledException',
  'KMSThrottlingException',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'InternalFailure',
  'InternalError',
  'RequestTimeout',
  'RequestTimeoutException',
  'RequestExpired',
]);

/** Substrings of a 4xx answer that make it retriable (a plain substring match, as in Vector). */
const RETRIABLE_TEXT = ['RequestTimeout', 'RequestExpired', 'ThrottlingException'];

/** The parts of an SDK service exception this module reads. */
interface ServiceErrorShape {
  readonly name?: string;
  readonly message?: string;
  readonly $metadata?: { readonly httpStatusCode?: number };
  readonly $response?: { readonly statusCode?: number; readonly headers?: Record<string, string | undefined> };
}

/** How one failed call should be treated. */
export interface CloudwErrorClass {
  readonly retriable: boolean;
  /** The HTTP status of the answer, when there was one. */
  readonly status: number | undefined;
  /** The service's error code (`ThrottlingException`), or the transport error's name. */
  readonly code: string;
}

/** The HTTP status of an SDK error, if the service answered. */
export function statusOfCloudwError(err: unknown): number | undefined {
  const e = err as ServiceErrorShape | undefined;
  return e?.$metadata?.httpStatusCode ?? e?.$response?.statusCode;
}

/** Classifies an error thrown by an SDK call. */
export function classifyCloudwError(err: unknown): CloudwErrorClass {
  const e = (err ?? {}) as ServiceErrorShape;
  const code = e.name ?? 'Error';
  if (err instanceof CredentialsError) return { retriable: false, status: undefined, code };
  const status = statusOfCloudwError(err);
  if (status === undefined) return { retriable: true, status, code }; // no answer: connection, timeout, abort, unknown shape
  const headers = e.$response?.headers ?? {};
  const hasRetryAfter = Object.keys(headers).some((h) => h.toLowerCase() === 'x-amz-retry-after');
  if (hasRetryAfter || status >= 500 || status === 429 || THROTTLING_CODES.has(code)) return { retriable: true, status, code };
  const text = `${code} ${e.message ?? ''}`;
  if (status >= 400 && RETRIABLE_TEXT.some((t) => text.includes(t))) return { retriable: true, status, code };
  return { retriable: false, status, code };
}

/** Whether another attempt may succeed (the skeleton's `isRetriableError`). */
export const isRetriableCloudwError = (err: unknown): boolean => classifyCloudwError(err).retriable;
