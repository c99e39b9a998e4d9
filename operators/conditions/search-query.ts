/**
 * `search_query` conditions (Vector's `datadog_search`): the Datadog search syntax shared with
 * VRL's `match_datadog_query`, matched over a log event's fields. Metric events never match.
 */
import type { Event } from '../../lib/event.js';
import { compileDatadogQuery } from '../../lib/search-query.js';
import { ConditionError } from './error.js';

/**
 * Compiles a search query into a predicate over events; only log events can match.
 * Throws {@link ConditionError} naming `optionPath` for an invalid query.
 */
export function compileSearchQuery(source: string, optionPath: string): (e: Event) => boolean {
  let test: ReturnType<typeof compileDatadogQuery>;
  try {
    test = compileDatadogQuery(source, 'event');
  } catch (err) {
    throw new ConditionError(`invalid search query "${source}": ${(err as Error).message}`, optionPath);
  }
  return (e) => e.type === 'log' && test(e.fields);
}
