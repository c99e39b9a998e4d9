/** Which answers of the `http` sink are retried, per `retry_strategy` (the request-sink's `classify`). */
import type { Verdict } from '../../shared/request-sink.js';
import { HttpStatusError, statusVerdict } from '../../shared/http/status.js';
import type { RetryStrategy } from './config.js';

type Answer = { readonly status: number; readonly body: string };

/**
 * The verdict function of a strategy. A request given up ends `errored` after a 5xx or 429 and
 * `rejected` after any other status, whichever strategy gave it up.
 */
export function strategyVerdict<R>(strategy: RetryStrategy): (res: Answer) => Verdict<R> {
  if (strategy.type === 'default') return statusVerdict;
  const retries: (status: number) => boolean =
    strategy.type === 'all' ? () => true : strategy.type === 'none' ? () => false : ((codes) => (status: number) => codes.has(status))(new Set(strategy.status_codes));
  return (res) => {
    if (res.status >= 200 && res.status < 300) return { kind: 'ok' };
    const status = res.status >= 500 || res.status === 429 ? 'errored' : 'rejected';
    return { kind: retries(res.status) ? 'retry' : 'reject', error: new HttpStatusError(res.status, res.body), status };
  };
}
