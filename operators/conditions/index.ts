/**
 * Conditions (`vrl`, `search_query`, `is_*`): one module used by filter, route, reduce, throttle and sinks.
 * A condition is compiled once at build time into a predicate over one event.
 */
import * as v from 'valibot';
import type { Event } from '../../lib/event.js';
import { compileVrlCondition } from './vrl.js';
import { compileSearchQuery } from './search-query.js';
import { ConditionError } from './error.js';

export type Predicate = (e: Event) => boolean;

export { ConditionError } from './error.js';

export const CONDITION_TYPES = ['vrl', 'search_query', 'is_log', 'is_metric', 'is_trace'] as const;

/** Vector's name of the `search_query` condition. */
const CONDITION_ALIASES: Readonly<Record<string, (typeof CONDITION_TYPES)[number]>> = { datadog_search: 'search_query' };

/** A plain string (a vrl program) or `{ type, source }`; `type` may also be Vector's `datadog_search`. */
export const conditionSchema = v.union(
  [
    v.string(),
    v.strictObject({
      type: v.pipe(
        v.picklist([...CONDITION_TYPES, ...(Object.keys(CONDITION_ALIASES) as ['datadog_search'])]),
        v.transform((t) => CONDITION_ALIASES[t] ?? (t as (typeof CONDITION_TYPES)[number])),
      ),
      source: v.optional(v.string()),
    }),
  ],
  `must be a vrl program string or an object with type (${CONDITION_TYPES.join(', ')}) and source`,
);
export type ConditionConfig = v.InferOutput<typeof conditionSchema>;

/** Compiles a condition; `optionPath` (e.g. `condition`) locates errors in config messages. */
export function compileCondition(c: ConditionConfig, optionPath = 'condition', timezone?: string): Predicate {
  if (typeof c === 'string') return compileVrlCondition(c, optionPath, timezone);
  switch (c.type) {
    case 'is_log':
      return (e) => e.type === 'log';
    case 'is_metric':
      return (e) => e.type === 'metric';
    case 'is_trace':
      return () => false; // weir carries no trace events yet
    case 'vrl':
      if (c.source === undefined) throw new ConditionError('source is required for vrl conditions', `${optionPath}.source`);
      return compileVrlCondition(c.source, `${optionPath}.source`, timezone);
    case 'search_query':
      if (c.source === undefined) throw new ConditionError('source is required for search_query conditions', `${optionPath}.source`);
      return compileSearchQuery(c.source, `${optionPath}.source`);
  }
}
