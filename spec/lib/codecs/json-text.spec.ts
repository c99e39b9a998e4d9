/**
 * The default JSON text of values is written by a walk (no `toJSON` calls); it must be exactly the
 * text `JSON.stringify` gives through the values' own `toJSON`, with regexes as their source.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { valueToJSONText } from '../../../lib/codecs/json.js';
import { Float, Timestamp, type Value } from '../../../lib/value.js';

const scalar: fc.Arbitrary<Value> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double().map((d) => (Number.isInteger(d) ? d : new Float(d))),
  fc.constantFrom(-0, Number.MAX_SAFE_INTEGER + 2, new Float(NaN), new Float(Infinity), new Float(-0)),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  fc.record({ ms: fc.integer({ min: -62135596800000, max: 253402300799999 }), ns: fc.integer({ min: 0, max: 999_999 }) }).map(({ ms, ns }) => new Timestamp(ms, ns)),
);
const value: fc.Arbitrary<Value> = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, fc.array(tie('v')), fc.dictionary(fc.string({ unit: 'binary' }), tie('v'))),
})).v as fc.Arbitrary<Value>;

describe('lib/codecs/json: default JSON text', () => {
  it('is the text JSON.stringify writes through toJSON, for any value', () => {
    fc.assert(fc.property(value, (v) => {
        expect(valueToJSONText(v)).to.equal(JSON.stringify(v));
      }), { numRuns: 2000, seed: 16 });
  });

  it('writes a regex as its source and skips undefined fields', () => {
    const v = { a: /x\d+"/, b: undefined, c: [1, /y/], __proto__x: 1 } as unknown as Value;
    expect(valueToJSONText(v)).to.equal('{"a":"x\\\\d+\\"","c":[1,"y"],"__proto__x":1}');
  });

  it('escapes field names (quotes, control characters, lone surrogates) as JSON.stringify does', () => {
    const v = { 'a"b': 1, 'c\nd': 2, '\ud800': 3, '': 4, '10': 5 } as Value;
    expect(valueToJSONText(v)).to.equal(JSON.stringify(v));
  });
});
