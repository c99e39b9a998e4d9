/** Several endpoints behind one sink: the `routing` option, the load-balancing pool and the failover ring. */
export { ROUTING_STRATEGIES, type RoutingConfig, type RoutingStrategy, healthcheckTargets, routingSchema, singleOrRouting } from './options.js';
export { EndpointPool, FailoverRing, type Health, type Lease, type PoolHooks, UNHEALTHY_AFTER } from './pool.js';
export { endpointPool, failoverAttempts, routedRequestOptions, routedSend } from './send.js';
