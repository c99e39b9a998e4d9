/** assert and assert_eq: fail with a message when a condition does not hold. */
import { valueEquals } from '../../lib/value.js';
import { displayValue } from '../../lib/value-display.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fail } from './errors.js';

const assert = defineFunction({
  name: 'assert',
  description: 'Fails with a message when the condition is false.',
  params: [
    { name: 'condition', kind: K.BOOLEAN, required: true },
    { name: 'message', kind: K.BYTES },
  ],
  fallible: true,
  returns: K.K_BOOLEAN,
  call: ([c, m]) => {
    if (c === true) return true;
    return fail(typeof m === 'string' ? m : 'assertion failed');
  },
});

const assertEq = defineFunction({
  name: 'assert_eq',
  description: 'Fails with a message when the two values differ.',
  params: [
    { name: 'left', kind: K.ANY_VALUE, required: true },
    { name: 'right', kind: K.ANY_VALUE, required: true },
    { name: 'message', kind: K.BYTES },
  ],
  fallible: true,
  returns: K.K_BOOLEAN,
  call: ([l, r, m]) => {
    if (valueEquals(l!, r!)) return true;
    return fail(typeof m === 'string' ? m : `assertion failed: ${displayValue(l!)} == ${displayValue(r!)}`);
  },
});

/** The functions of this file, for the stdlib list. */
export const assertionFunctions: readonly FnDef[] = [assert, assertEq];
