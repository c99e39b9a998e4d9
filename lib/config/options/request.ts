/** `request.*`: concurrency, rate limit, retries and time limit of a sink's requests. */
import * as v from 'valibot';
import { posint, uint } from './numbers.js';

/** A sink's request defaults; the keys not listed here have one default for every sink. */
export interface RequestDefaults {
  concurrency?: number | 'adaptive' | 'none';
  rate_limit_num: number;
  retry_attempts: number;
  retry_max_duration_secs: number;
  timeout_secs: number;
  decrease_ratio: number;
  ewma_alpha: number;
  rtt_deviation_scale: number;
}

/** The request defaults most sinks share (Vector's); the two huge counts stand for "unlimited". */
export const REQUEST_DEFAULTS: RequestDefaults = {
  rate_limit_num: 9.223372036854776e18,
  retry_attempts: 1.8446744073709552e19,
  retry_max_duration_secs: 3600,
  timeout_secs: 60,
  decrease_ratio: 0.9,
  ewma_alpha: 0.7,
  rtt_deviation_scale: 2,
};

/** A ratio strictly between 0 and 1. */
const ratio = (description: string) =>
  v.pipe(v.number(), v.gtValue(0, 'must be greater than 0'), v.ltValue(1, 'must be less than 1'), v.description(description));

/** `request.*` with the sink's defaults. */
export function requestSchema(d: RequestDefaults = REQUEST_DEFAULTS) {
  return v.optional(
    v.strictObject({
      concurrency: v.optional(
        v.pipe(
          v.union([v.picklist(['adaptive', 'none']), posint()], 'must be "adaptive", "none" or a positive integer'),
          v.description('Requests in flight at once: "adaptive" (a limit that follows response times), "none" (one) or a fixed number.'),
        ),
        d.concurrency ?? 'adaptive',
      ),
      rate_limit_duration_secs: v.optional(v.pipe(posint(), v.description('Length of the rate-limit window, in seconds.')), 1),
      rate_limit_num: v.optional(v.pipe(posint(), v.description('Most requests started in one rate-limit window.')), d.rate_limit_num),
      retry_attempts: v.optional(v.pipe(uint(), v.description('Most retries of one request after its first attempt.')), d.retry_attempts),
      retry_initial_backoff_secs: v.optional(v.pipe(posint(), v.description('Seconds before the first retry; later waits grow as the Fibonacci sequence.')), 1),
      retry_max_duration_secs: v.optional(v.pipe(posint(), v.description('Longest wait between two attempts, in seconds.')), d.retry_max_duration_secs),
      retry_jitter_mode: v.optional(v.pipe(v.picklist(['none', 'full']), v.description('"full" waits a random time up to each backoff; "none" waits the backoff.')), 'none'),
      timeout_secs: v.optional(v.pipe(posint(), v.description('Seconds one attempt may take before it counts as failed.')), d.timeout_secs),
      headers: v.optional(v.pipe(v.record(v.string(), v.string()), v.description('Headers added to every request.')), {}),
      adaptive_concurrency: v.optional(
        v.strictObject({
          decrease_ratio: v.optional(ratio('Factor the limit is multiplied by when response times grow or requests fail.'), d.decrease_ratio),
          ewma_alpha: v.optional(ratio('Weight of the newest response time in the moving average.'), d.ewma_alpha),
          rtt_deviation_scale: v.optional(
            v.pipe(v.number(), v.minValue(0), v.description('Deviations of the response time that still count as normal; more makes the limit steadier.')),
            d.rtt_deviation_scale,
          ),
          initial_concurrency: v.optional(v.pipe(posint(), v.description('Limit to start from.')), 1),
          max_concurrency_limit: v.optional(v.pipe(posint(), v.description('Highest limit the adaptive concurrency may reach.')), 200),
        }),
        {},
      ),
    }),
    {},
  );
}
