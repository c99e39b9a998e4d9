/** A request sink's `send` over `routing`: each attempt goes where the strategy says, and its answer tells the strategy about that endpoint. */
import type { ComponentContext } from '../../../lib/component.js';
import { EndpointPool, FailoverRing, type Health } from './pool.js';
import type { RoutingConfig } from './options.js';

/**
 * The load-balancing pool of a sink's endpoints with Vector's `active_endpoints` gauge, and a
 * warning when an endpoint is taken out (an info line when it is back).
 */
export function endpointPool<T>(routing: RoutingConfig<T>, ctx: ComponentContext, nameOf: (e: T) => string = String): EndpointPool<T> {
  const gauge = ctx.telemetry.gauge('active_endpoints');
  return new EndpointPool(routing.endpoints, routing.health, ctx.scheduler, nameOf, {
    active: (n) => gauge.set(n),
    changed: (endpoint, healthy) => (healthy ? ctx.log.info('Endpoint is healthy.', { endpoint }) : ctx.log.warn('Endpoint is unhealthy.', { endpoint })),
  });
}

/** Attempts one call of a failover strategy makes at most (Vector's: each endpoint once, plus the primary again). */
export const failoverAttempts = (routing: RoutingConfig<unknown>): number => routing.endpoints.length + (routing.strategy === 'failover_primary' ? 1 : 0);

/**
 * The request options a routed sink runs with: as configured for `load_balance`; for the failover
 * strategies (as Vector does) one request at a time, so one endpoint is in use, and a call's
 * timeout long enough for each of its attempts to take the configured one.
 */
export function routedRequestOptions<Q extends { readonly timeout_secs: number; readonly concurrency: unknown }>(request: Q, routing: RoutingConfig<unknown> | undefined): Q {
  if (routing === undefined || routing.strategy === 'load_balance' || routing.endpoints.length < 2) return request;
  return { ...request, concurrency: 1, timeout_secs: request.timeout_secs * (failoverAttempts(routing) + 1) };
}

/**
 * Wraps a per-endpoint send. A transport error (refused, reset, timed out) counts against the
 * endpoint; an answer counts as `healthOf` says (`false`: the endpoint failed, e.g. a 5xx).
 * `load_balance` picks one endpoint per attempt (the request skeleton retries a failed one, and
 * the retry goes where the pool says then); the failover strategies try the endpoints in their
 * order within one attempt, each for at most `timeoutMs`, and hand back the last failure.
 */
export function routedSend<T, R, Res>(
  routing: RoutingConfig<T>,
  ctx: ComponentContext,
  timeoutMs: number,
  send: (endpoint: T, request: R, signal: AbortSignal) => Promise<Res>,
  healthOf: (response: Res) => Health,
  nameOf: (e: T) => string = String,
): (request: R, signal: AbortSignal) => Promise<Res> {
  if (routing.strategy === 'load_balance') {
    const pool = endpointPool(routing, ctx, nameOf);
    return async (request, signal) => {
      const lease = pool.pick();
      let response: Res;
      try {
        response = await send(lease.endpoint, request, signal);
      } catch (err) {
        lease.done(false);
        throw err;
      }
      lease.done(healthOf(response));
      return response;
    };
  }
  const ring = new FailoverRing(routing.endpoints, routing.strategy === 'failover_primary');
  return async (request, signal) => {
    const order = ring.order();
    let last: { response: Res } | { error: unknown } = { error: new Error('no endpoint') };
    for (let k = 0; k < order.length; k++) {
      const index = order[k]!;
      const attempt = new AbortController();
      const abort = () => attempt.abort(signal.reason);
      signal.addEventListener('abort', abort, { once: true });
      const timer = ctx.scheduler.schedule(() => attempt.abort(new Error(`endpoint ${nameOf(routing.endpoints[index]!)} timed out after ${timeoutMs} ms`)), timeoutMs);
      try {
        const response = await send(routing.endpoints[index]!, request, attempt.signal);
        if (healthOf(response) !== false) return response;
        last = { response };
      } catch (error) {
        if (signal.aborted) throw error;
        last = { error };
      } finally {
        timer.unsubscribe();
        signal.removeEventListener('abort', abort);
      }
      ring.failed(index, order[k + 1]);
      if (k + 1 < order.length) ctx.log.warn('Endpoint failed; trying the next.', { endpoint: nameOf(routing.endpoints[index]!), next: nameOf(routing.endpoints[order[k + 1]!]!) });
    }
    if ('response' in last) return last.response;
    throw last.error;
  };
}
