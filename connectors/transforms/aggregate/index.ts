/** `aggregate` transform: combines the metrics of each series over an interval. */
import { defineTransform } from '../../../lib/component.js';
import { aggregate } from './aggregate.js';
import { AggregateConfig } from './config.js';
import { aggregateEvents } from './events.js';

export { AggregateConfig } from './config.js';

/** The `aggregate` component definition for the catalog. */
export const aggregateTransform = defineTransform({
  merges: true,
  type: 'aggregate',
  summary: 'Aggregate metrics of each series over an interval.',
  schema: AggregateConfig,
  input: 'metric',
  build: (config, ctx) => aggregate({ intervalMs: config.interval_ms, mode: config.mode, scheduler: ctx.scheduler, events: aggregateEvents(ctx) }),
});
