/** Random values: random_int, random_float, random_bool, random_bytes. */
import { randomBytes, randomInt } from 'node:crypto';
import { Float } from '../../lib/value.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { num } from './args.js';
import { fromBytes } from './bytes.js';
import { fail } from './errors.js';

/** Uniform integer in [min, max); crypto's randomInt only spans safe ranges under 2^48. */
function randomIntIn(min: number, max: number): number {
  if (Number.isSafeInteger(min) && Number.isSafeInteger(max) && max - min < 2 ** 48) return randomInt(min, max);
  const r = Math.floor(min + Math.random() * (max - min));
  return r >= max ? min : r;
}

/** The functions of this file, for the stdlib list. */
export const randomFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'random_int',
    description: 'A random integer in a range.',
    params: [
      { name: 'min', kind: K.INTEGER, required: true },
      { name: 'max', kind: K.INTEGER, required: true },
    ],
    impure: true,
    fallible: (args) => !(args[0]!.isConstant && args[1]!.isConstant && num(args[0]!.constant) < num(args[1]!.constant)),
    returns: K.K_INTEGER,
    call: ([a, b]) => ((a as number) < (b as number) ? randomIntIn(a as number, b as number) : fail('max must be greater than min')),
  }),
  defineFunction({
    name: 'random_float',
    description: 'A random float in a range.',
    params: [
      { name: 'min', kind: K.FLOAT, required: true },
      { name: 'max', kind: K.FLOAT, required: true },
    ],
    impure: true,
    fallible: (args) => !(args[0]!.isConstant && args[1]!.isConstant && num(args[0]!.constant) < num(args[1]!.constant)),
    returns: K.K_FLOAT,
    call: ([a, b]) => {
      const lo = num(a);
      const hi = num(b);
      return lo < hi ? new Float(lo + Math.random() * (hi - lo)) : fail('max must be greater than min');
    },
  }),
  defineFunction({ name: 'random_bool', description: 'A random boolean.', params: [], impure: true, returns: K.K_BOOLEAN, call: () => Math.random() < 0.5 }),
  defineFunction({
    name: 'random_bytes',
    description: 'A number of random bytes.',
    params: [{ name: 'length', kind: K.INTEGER, required: true }],
    impure: true,
    fallible: (args) => !(args[0]!.isConstant && num(args[0]!.constant) >= 0 && num(args[0]!.constant) <= 65536),
    returns: K.K_BYTES,
    call: ([n]) => ((n as number) >= 0 && (n as number) <= 65536 ? fromBytes(randomBytes(n as number)) : fail('Length is too large. Maximum is 64k')),
  }),
];
