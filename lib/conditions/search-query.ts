/** `search_query` conditions. */
import type { Event } from '../event.js';
import { ConditionError } from './index.js';

export function compileSearchQuery(_source: string, optionPath: string): (e: Event) => boolean {
  throw new ConditionError('search_query conditions are not available in this build', optionPath);
}
