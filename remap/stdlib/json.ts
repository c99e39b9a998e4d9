/** parse_json and encode_json. */
import type { Value } from '../../lib/value.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { VrlError } from '../runtime.js';
import { fail } from './errors.js';
import { encodeJson, parseJsonText } from './json-codec.js';

/** Kind of any JSON document. */
export const JSON_KIND: K.Kind = (() => {
  const j = new K.Kind(K.BYTES | K.INTEGER | K.FLOAT | K.BOOLEAN | K.NULL | K.OBJECT | K.ARRAY) as unknown as { fieldsUnknown: K.Kind; itemsUnknown: K.Kind };
  j.fieldsUnknown = j as unknown as K.Kind;
  j.itemsUnknown = j as unknown as K.Kind;
  return j as unknown as K.Kind;
})();

/** The functions of this file, for the stdlib list. */
export const jsonFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'parse_json',
    description: 'Parses JSON text.',
    fresh: true,
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'max_depth', kind: K.INTEGER },
      { name: 'lossy', kind: K.BOOLEAN },
    ],
    fallible: true,
    returns: JSON_KIND,
    call: ([v, d]) => {
      // without max_depth, nesting past serde_json's recursion limit is an error (as in VRL)
      if (typeof d !== 'number') return parseJsonText(v as string);
      if (d < 1 || d > 128) return fail('max_depth value should be greater than 0 and less than 128, got ' + d);
      try {
        return parseJsonText(v as string, d);
      } catch (e) {
        // VRL reads the text whole before the depth-limited parse, and words its errors so
        if (e instanceof VrlError) throw new VrlError(e.message.replace(/^unable to parse json: /, 'unable to read json: '));
        throw e;
      }
    },
  }),
  defineFunction({
    name: 'encode_json',
    description: 'Encodes a value as JSON text.',
    params: [
      { name: 'value', kind: K.ALL, required: true },
      { name: 'pretty', kind: K.BOOLEAN },
    ],
    returns: K.K_BYTES,
    call: ([v, p]) => encodeJson(v as Value, p === true),
  }),
];
