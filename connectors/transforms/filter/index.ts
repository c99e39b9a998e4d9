/** `filter`: keeps the events for which the condition holds. */
import * as v from 'valibot';
import { filter, map, pipe } from 'rxjs';
import { defineTransform } from '../../../lib/component.js';
import { settleAll, type Event, type EventBatch } from '../../../lib/event.js';
import { compileCondition, conditionSchema } from '../../../operators/conditions/index.js';
import { inputsSchema } from '../../../lib/config/options/envelope.js';

/** Options of the filter transform: its inputs and the condition an event must meet to be kept. */
export const FilterConfig = v.strictObject({
  type: v.literal('filter'),
  inputs: inputsSchema,
  condition: conditionSchema,
});
/** Parsed filter options. */
export type FilterConfig = v.InferOutput<typeof FilterConfig>;

/** The `filter` transform definition: keeps the events its condition accepts, counts the others as discarded. */
export const filterTransform = defineTransform({
  type: 'filter',
  summary: 'Keep only the events that match a condition.',
  schema: FilterConfig,
  input: 'any',
  // a condition looks at one event at a time
  runsInWorker: () => true,
  build: (config, ctx) => {
    const test = compileCondition(config.condition, 'condition', ctx.globals.timezone);
    const discarded = ctx.telemetry.counter('component_discarded_events_total', { intentional: 'true' });
    return pipe(
      map((batch: EventBatch) => {
        const kept: Event[] = [];
        let dropped: Event[] | undefined;
        for (const e of batch) {
          if (test(e)) kept.push(e);
          else (dropped ??= []).push(e);
        }
        if (dropped) {
          discarded.add(dropped.length);
          // an intentional drop completes the event's acknowledgement as delivered (as in Vector)
          settleAll(dropped, 'delivered');
        }
        return kept;
      }),
      filter((b) => b.length > 0),
    );
  },
});
