/** Several endpoints behind one sink: the `distribution` option and the pool of circuit breakers. */
export { DISTRIBUTION_STRATEGIES, type DistributionConfig, type DistributionStrategy, distributionSchema } from './options.js';
export { EndpointPool, type Health, type Lease, type PoolHooks, UNHEALTHY_AFTER } from './pool.js';
export { endpointPool, sendThrough } from './send.js';
