/** `vrl` conditions: a boolean remap program. */
import type { Event } from '../event.js';
import { ConditionError } from './index.js';

export function compileVrlCondition(_source: string, optionPath: string, _timezone?: string): (e: Event) => boolean {
  throw new ConditionError('vrl conditions are not available in this build', optionPath);
}
