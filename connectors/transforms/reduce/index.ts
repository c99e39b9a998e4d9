/** `reduce` transform: merges the log events of a transaction into one. */
import * as v from 'valibot';
import type { OperatorFunction } from 'rxjs';
import { type ComponentContext, defineTransform } from '../../../lib/component.js';
import type { EventBatch } from '../../../lib/event.js';
import { compileCondition, conditionSchema } from '../../../operators/conditions/index.js';
import { inputsSchema } from '../../../lib/config/options/envelope.js';
import { fieldPathSchema } from '../../../lib/config/options/field-path.js';
import { posint, uint } from '../../../lib/config/options/numbers.js';
import { MERGE_STRATEGIES, type ReduceEvents, reduce } from '../../../operators/transforms/reduce/index.js';

/** Options of reduce; starts_when and ends_when exclude each other. */
export const ReduceConfig = v.pipe(
  v.strictObject({
    type: v.literal('reduce'),
    inputs: inputsSchema,
    group_by: v.optional(v.array(fieldPathSchema('Field whose value, with the others listed, keys a transaction.')), []),
    merge_strategies: v.optional(v.record(fieldPathSchema('Field the strategy applies to; array indexes cannot name one.', { noIndexes: true }), v.picklist(MERGE_STRATEGIES, `must be one of ${MERGE_STRATEGIES.join(', ')}`)), {}),
    starts_when: v.optional(conditionSchema),
    ends_when: v.optional(conditionSchema),
    expire_after_ms: v.optional(uint(), 30_000),
    flush_period_ms: v.optional(posint(), 1000),
  }),
  v.check((c) => !(c.starts_when !== undefined && c.ends_when !== undefined), 'only one of starts_when and ends_when can be set'),
);
export type ReduceConfig = v.InferOutput<typeof ReduceConfig>;

/** Vector's internal events of reduce: log and count together. */
function reduceEvents(ctx: ComponentContext): ReduceEvents {
  const stale = ctx.telemetry.counter('stale_events_flushed_total');
  return {
    staleFlushed: (n) => stale.add(n),
    mergeFailed: (field, reason) => ctx.log.warn('Failed to merge value.', { field, reason }),
    conditionFailed: (which, error) => ctx.log.warn('Condition evaluation failed.', { condition: which, error: String(error) }),
  };
}

/** Builds reduce on the context's scheduler (virtual time in tests). */
export function buildReduce(config: ReduceConfig, ctx: ComponentContext): OperatorFunction<EventBatch, EventBatch> {
  const tz = ctx.globals.timezone;
  return reduce({
    groupBy: config.group_by,
    mergeStrategies: config.merge_strategies,
    startsWhen: config.starts_when === undefined ? undefined : compileCondition(config.starts_when, 'starts_when', tz),
    endsWhen: config.ends_when === undefined ? undefined : compileCondition(config.ends_when, 'ends_when', tz),
    expireAfterMs: config.expire_after_ms,
    flushPeriodMs: config.flush_period_ms,
    scheduler: ctx.scheduler,
    events: reduceEvents(ctx),
  });
}

/** The `reduce` component definition for the catalog. */
export const reduceTransform = defineTransform({
  merges: true,
  type: 'reduce',
  summary: 'Merge the log events of a transaction into one event.',
  schema: ReduceConfig,
  input: 'log',
  vectorOptions: ['max_events', 'end_every_period_ms'],
  build: buildReduce,
});
