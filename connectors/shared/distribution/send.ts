/** A request sink's `send` over a pool: each attempt goes to the endpoint the pool picks, and its answer tells the pool about that endpoint. */
import type { ComponentContext } from '../../../lib/component.js';
import { EndpointPool, type Health } from './pool.js';
import type { DistributionConfig } from './options.js';

/**
 * The pool of a sink's endpoints with Vector's `active_endpoints` gauge, and a warning when an
 * endpoint is taken out (an info line when it is back).
 */
export function endpointPool<T>(endpoints: readonly T[], config: DistributionConfig, ctx: ComponentContext, nameOf: (e: T) => string = String): EndpointPool<T> {
  const gauge = ctx.telemetry.gauge('active_endpoints');
  return new EndpointPool(endpoints, config, ctx.scheduler, nameOf, {
    active: (n) => gauge.set(n),
    changed: (endpoint, healthy) => (healthy ? ctx.log.info('Endpoint is healthy.', { endpoint }) : ctx.log.warn('Endpoint is unhealthy.', { endpoint })),
  });
}

/**
 * Wraps a per-endpoint send: a transport error (refused, reset, timed out) counts against the
 * endpoint, an answer counts as `healthOf` says. With one endpoint nothing is wrapped.
 */
export function sendThrough<T, R, Res>(
  pool: EndpointPool<T>,
  send: (endpoint: T, request: R, signal: AbortSignal) => Promise<Res>,
  healthOf: (response: Res) => Health,
): (request: R, signal: AbortSignal) => Promise<Res> {
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
