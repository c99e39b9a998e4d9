/**
 * `distribution`: how a sink with several endpoints spreads its requests, and how a failing endpoint is
 * taken out and tried again. The two backoff options are Vector's (its `elasticsearch` sink's
 * `distribution`); `strategy` is weir's, since Vector only load-balances.
 */
import * as v from 'valibot';
import { posint } from '../../../lib/config/options/numbers.js';

/** `load_balance`: every healthy endpoint; `failover`: one at a time, moving on when it fails; `primary`: the first healthy one in the list order. */
export const DISTRIBUTION_STRATEGIES = ['load_balance', 'failover', 'primary'] as const;
export type DistributionStrategy = (typeof DISTRIBUTION_STRATEGIES)[number];

export const distributionSchema = () =>
  v.optional(
    v.strictObject({
      strategy: v.optional(
        v.pipe(
          v.picklist(DISTRIBUTION_STRATEGIES),
          v.description(
            'How requests spread over the endpoints: `load_balance` (each request to the healthy endpoint with the fewest requests in flight), ' +
              '`failover` (all to one endpoint until it is unhealthy, then the next), `primary` (all to the first healthy endpoint in list order, back to it once it recovers).',
          ),
        ),
        'load_balance',
      ),
      retry_initial_backoff_secs: v.optional(v.pipe(posint(), v.description('First wait before an unhealthy endpoint is tried again; doubles after each failed try.')), 1),
      retry_max_duration_secs: v.optional(v.pipe(posint(), v.description('Longest wait between tries of an unhealthy endpoint.')), 3600),
    }),
    {},
  );

export type DistributionConfig = v.InferOutput<ReturnType<typeof distributionSchema>>;
