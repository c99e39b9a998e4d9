/** valibot -> JSON Schema: each construct the option schemas use. */
import { expect } from 'chai';
import * as v from 'valibot';
import { toJsonSchema } from '../../../lib/config/json-schema.js';
import { bufferSchema } from '../../../lib/config/options/buffer.js';
import { healthcheckSchema } from '../../../lib/config/options/envelope.js';
import { uint } from '../../../lib/config/options/numbers.js';

describe('toJsonSchema', () => {
  it('scalars, literals and picklists', () => {
    expect(toJsonSchema(v.string())).to.deep.equal({ type: 'string' });
    expect(toJsonSchema(v.number())).to.deep.equal({ type: 'number' });
    expect(toJsonSchema(v.boolean())).to.deep.equal({ type: 'boolean' });
    expect(toJsonSchema(v.literal('http'))).to.deep.equal({ const: 'http' });
    expect(toJsonSchema(v.picklist(['a', 'b']))).to.deep.equal({ enum: ['a', 'b'] });
    expect(toJsonSchema(v.unknown())).to.deep.equal({});
  });

  it('pipes: number checks, integer, lengths, patterns, URLs and descriptions', () => {
    expect(toJsonSchema(uint())).to.deep.equal({ type: 'integer', minimum: 0 });
    expect(toJsonSchema(v.pipe(v.number(), v.gtValue(0), v.ltValue(1), v.description('a ratio')))).to.deep.equal({
      type: 'number',
      exclusiveMinimum: 0,
      exclusiveMaximum: 1,
      description: 'a ratio',
    });
    expect(toJsonSchema(v.pipe(v.string(), v.minLength(1), v.regex(/^[a-z]+$/), v.url()))).to.deep.equal({ type: 'string', minLength: 1, pattern: '^[a-z]+$', format: 'uri' });
    expect(toJsonSchema(v.pipe(v.array(v.string()), v.minLength(1)))).to.deep.equal({ type: 'array', items: { type: 'string' }, minItems: 1 });
  });

  it('checks after a conversion describe the converted value, so they are left out', () => {
    expect(toJsonSchema(v.pipe(v.string(), v.transform((s) => s.length), v.minValue(3)))).to.deep.equal({ type: 'string' });
  });

  it('objects: strict ones refuse other keys; optional options are not required and carry their defaults', () => {
    const s = v.strictObject({ a: v.string(), b: v.optional(v.number(), 5), c: v.optional(v.boolean()) });
    expect(toJsonSchema(s)).to.deep.equal({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'number', default: 5 }, c: { type: 'boolean' } },
      required: ['a'],
      additionalProperties: false,
    });
    expect(toJsonSchema(v.object({ a: v.string() })).additionalProperties).to.equal(true);
  });

  it('records, unions, variants and nullables', () => {
    expect(toJsonSchema(v.record(v.string(), v.number()))).to.deep.equal({ type: 'object', additionalProperties: { type: 'number' } });
    expect(toJsonSchema(v.record(v.pipe(v.string(), v.regex(/^x/)), v.number()))).to.deep.equal({
      type: 'object',
      additionalProperties: { type: 'number' },
      propertyNames: { type: 'string', pattern: '^x' },
    });
    expect(toJsonSchema(v.union([v.string(), v.array(v.string())]))).to.deep.equal({ anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] });
    expect(toJsonSchema(v.variant('k', [v.strictObject({ k: v.literal('a') })]))).to.deep.equal({
      anyOf: [{ type: 'object', properties: { k: { const: 'a' } }, required: ['k'], additionalProperties: false }],
    });
    expect(toJsonSchema(v.nullable(v.string()))).to.deep.equal({ anyOf: [{ type: 'string' }, { type: 'null' }] });
  });

  it("Vector's shorthand forms: the table, or any value that is not a table", () => {
    const health = toJsonSchema(healthcheckSchema());
    expect(health.anyOf).to.deep.equal([
      {
        type: 'object',
        properties: {
          enabled: { type: 'boolean', default: true, description: 'Check at start that the destination answers.' },
          uri: { type: 'string', description: 'Accepted as Vector accepts it; no effect: this health check queries no URI.' },
        },
        additionalProperties: false,
      },
      { not: { type: 'object' } },
    ]);
    const buffer = toJsonSchema(bufferSchema()) as { anyOf: { properties: Record<string, unknown> }[] };
    expect(Object.keys(buffer.anyOf[0]!.properties)).to.deep.equal(['type', 'max_events', 'max_size', 'when_full']);
  });
});
