/**
 * `routing`: several endpoints behind one sink, with Vector's names (its `vector` sink's
 * `routing.endpoints`, `routing.strategy`, `routing.health`). The http and socket sinks take the
 * same block, so one shape spreads every sink that has more than one destination.
 */
import * as v from 'valibot';
import { posint } from '../../../lib/config/options/numbers.js';

/**
 * `load_balance`: each request to a healthy endpoint, the unhealthy ones backed off and probed
 * (`health`); `failover`: one endpoint at a time, moving on through the list when it fails;
 * `failover_primary`: the same, but after a failure the list is tried from its first endpoint again.
 */
export const ROUTING_STRATEGIES = ['load_balance', 'failover', 'failover_primary'] as const;
export type RoutingStrategy = (typeof ROUTING_STRATEGIES)[number];

/** Vector's endpoint health options (its defaults: 1 s, one hour). */
const healthSchema = v.optional(
  v.strictObject({
    retry_initial_backoff_secs: v.optional(v.pipe(posint(), v.description('First wait before an unhealthy endpoint is probed again; doubles after each failed probe.')), 1),
    retry_max_duration_secs: v.optional(v.pipe(posint(), v.description('Longest wait between probes of an unhealthy endpoint.')), 3600),
  }),
  {},
);

/** `routing`, with `endpoint` the schema of one endpoint (a URL, a `host:port`). */
export function routingSchema<const E extends v.GenericSchema<unknown, string>>(endpoint: E) {
  return v.optional(
    v.strictObject({
      endpoints: v.pipe(
        v.array(endpoint),
        v.minLength(1, 'must contain at least one endpoint'),
        v.description('The endpoints requests go to, as `strategy` says.'),
      ),
      strategy: v.optional(
        v.pipe(
          v.picklist(ROUTING_STRATEGIES),
          v.description(
            '`load_balance`: each request to a healthy endpoint, with the fewest requests in flight; `failover`: one endpoint at a time, moving on to the next when it fails; ' +
              '`failover_primary`: one at a time, and after a failure the endpoints are tried from the first again. The failover strategies send one request at a time.',
          ),
        ),
        'load_balance',
      ),
      health: v.pipe(healthSchema, v.description('How an unhealthy endpoint is backed off and probed (`load_balance` only).')),
    }),
  );
}

/** A validated `routing` block. */
export interface RoutingConfig<T = string> {
  readonly endpoints: readonly T[];
  readonly strategy: RoutingStrategy;
  readonly health: { readonly retry_initial_backoff_secs: number; readonly retry_max_duration_secs: number };
}

/** Vector's check: exactly one of the single-endpoint option (`address`, `uri`) and `routing`. */
export function singleOrRouting(single: string, hasSingle: boolean, hasRouting: boolean): { key: string; message: string } | undefined {
  if (hasSingle && hasRouting) return { key: 'routing', message: `${single} and routing are mutually exclusive: list several endpoints in routing.endpoints` };
  if (!hasSingle && !hasRouting) return { key: single, message: `no endpoint configured: set ${single} or routing.endpoints` };
  return undefined;
}

/**
 * The endpoints the health check asks (Vector's rule): every one when load balancing, since each
 * takes requests; only the first with a failover strategy, the one in use at the start.
 */
export const healthcheckTargets = <T>(routing: RoutingConfig<T>): readonly T[] => (routing.strategy === 'load_balance' ? routing.endpoints : routing.endpoints.slice(0, 1));
