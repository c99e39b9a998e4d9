/**
 * Retries of one request with Fibonacci backoff (`request.retry_*`, waits 1, 1, 2, 3, 5 …
 * × initial, capped; as Vector). Wrap one request (`defer`), never a whole pipeline: `retry` resubscribes its source.
 */
import { type MonoTypeOperatorFunction, type SchedulerLike, asyncScheduler, retry, throwError, timer } from 'rxjs';

export interface RetryPolicy {
  /** Maximum number of retries after the first attempt; 0 = never retry. */
  readonly attempts: number;
  /** Wait before the first retry, ms. */
  readonly initialMs: number;
  /** Cap of any single wait, ms. */
  readonly maxMs: number;
  /** Whether an error may be retried; others are rethrown at once. */
  isRetriable(err: unknown): boolean;
  /** `full`: each wait is uniform in [1 ms, computed wait] while the sequence advances unchanged. */
  readonly jitter?: 'none' | 'full';
  /** Called before each wait (logging, counting). */
  onRetry?(err: unknown, retry: number, delayMs: number): void;
  /** Random source for jitter, in [0, 1). */
  readonly random?: () => number;
}

/** Wait before retry number `n` (1-based): initial, initial, then the sum of the previous two, capped. */
export function fibonacciDelay(n: number, initialMs: number, maxMs: number): number {
  let prev = 0;
  let cur = Math.min(initialMs, maxMs);
  for (let i = 1; i < n && cur < maxMs; i++) {
    const next = Math.min(prev + cur, maxMs);
    prev = cur;
    cur = next;
  }
  return cur;
}

/** `retry({ count, delay })` with Fibonacci waits; non-retriable errors pass through at once. */
export function retryFibonacci<T>(policy: RetryPolicy, scheduler: SchedulerLike = asyncScheduler): MonoTypeOperatorFunction<T> {
  const random = policy.random ?? Math.random;
  return retry<T>({
    count: policy.attempts,
    delay: (err: unknown, n: number) => {
      if (!policy.isRetriable(err)) return throwError(() => err);
      let ms = fibonacciDelay(n, policy.initialMs, policy.maxMs);
      if (policy.jitter === 'full') ms = Math.max(1, Math.floor(random() * ms) + 1);
      policy.onRetry?.(err, n, ms);
      return timer(ms, scheduler);
    },
  });
}

/** The `request.retry_*` options, as validated. */
export interface RetryOptions {
  readonly retry_attempts: number;
  readonly retry_initial_backoff_secs: number;
  readonly retry_max_duration_secs: number;
  readonly retry_jitter_mode?: 'none' | 'full';
}

/** A {@link RetryPolicy} from `request.retry_*` (seconds to ms). */
export function retryPolicy(request: RetryOptions, isRetriable: (err: unknown) => boolean, onRetry?: RetryPolicy['onRetry']): RetryPolicy {
  return {
    attempts: request.retry_attempts,
    initialMs: request.retry_initial_backoff_secs * 1000,
    maxMs: request.retry_max_duration_secs * 1000,
    isRetriable,
    jitter: request.retry_jitter_mode ?? 'none',
    ...(onRetry ? { onRetry } : {}),
  };
}
