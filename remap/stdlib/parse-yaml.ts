/** parse_yaml. */
import { type ObjectValue, type Value, Float } from '../../lib/value.js';
import { yaml } from '../../lib/yaml.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fail } from './errors.js';

function yamlToValue(j: unknown): Value {
  if (j === null || j === undefined) return null;
  if (typeof j === 'string' || typeof j === 'boolean') return j;
  if (typeof j === 'number') return Number.isInteger(j) ? j : new Float(j);
  if (j instanceof Date) return j.toISOString();
  if (Array.isArray(j)) return j.map(yamlToValue);
  if (typeof j === 'object') {
    const o: ObjectValue = {};
    for (const [k, v] of Object.entries(j as Record<string, unknown>)) o[k] = yamlToValue(v);
    return o;
  }
  return String(j);
}

/** The functions of this file, for the stdlib list. */
export const yamlFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'parse_yaml',
    description: 'Parses YAML text.',
    fresh: true,
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.ANY.without(K.UNDEFINED),
    call: ([v]) => {
      try {
        return yamlToValue(yaml().parse(v as string));
      } catch (e) {
        return fail(`unable to parse yaml: ${(e as Error).message.split('\n')[0]}`);
      }
    },
  }),
];
