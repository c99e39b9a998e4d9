import { expect } from 'chai';
import * as v from 'valibot';
import { defineSink } from '../../../lib/component.js';
import { componentText, optionRows, optionsMarkdown } from '../../../lib/config/reference.js';

const schema = v.strictObject({
  type: v.literal('probe'),
  inputs: v.array(v.string()),
  uri: v.pipe(v.string(), v.url(), v.description('Destination URI.')),
  batch: v.optional(v.strictObject({ max_events: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(500)), 20) }), {}),
  auth: v.optional(
    v.variant('strategy', [
      v.strictObject({ strategy: v.literal('basic'), user: v.string(), password: v.optional(v.string()) }),
      v.strictObject({ strategy: v.literal('bearer'), token: v.pipe(v.string(), v.description('Token | secret.')) }),
    ]),
  ),
  tags: v.optional(v.record(v.string(), v.string())),
  routes: v.optional(v.array(v.strictObject({ name: v.string() }))),
});
const def = defineSink({ type: 'probe', summary: 'A probe.', aliases: ['old_probe'], schema, build: () => () => { throw new Error('not built'); } } as never);

describe('lib/config/reference', () => {
  const rows = optionRows(def as never);
  const row = (path: string) => rows.find((r) => r.path === path);

  it('lists leaves by dotted path, in schema order, with type, default, bounds and description', () => {
    expect(rows.map((r) => r.path)).to.deep.equal(['type', 'inputs', 'uri', 'batch.max_events', 'auth.strategy', 'auth.user', 'auth.password', 'auth.token', 'tags.<name>', 'routes', 'routes[].name']);
    expect(row('uri')).to.include({ type: 'string', required: true, allowed: 'a URL', description: 'Destination URI.' });
    expect(row('batch.max_events')).to.include({ type: 'integer', required: false, default: '20', allowed: '1 … 500' });
  });

  it('merges the branches of a union: allowed values add up; required inside an optional table says which', () => {
    expect(row('auth.strategy')).to.include({ allowed: '"basic", "bearer"', required: false, requiredIn: 'auth' });
    expect(row('auth.password')!.requiredIn).to.equal(undefined);
    expect(row('routes[].name')).to.include({ requiredIn: 'routes[]' });
  });

  it('escapes pipes in Markdown cells; the text form names the aliases', () => {
    expect(optionsMarkdown(def as never)).to.include('| `auth.token` | string | *required in `auth`* |  | Token \\| secret. |');
    const text = componentText(def as never, '[sinks.p]\ntype = "probe"\n');
    expect(text).to.include("probe (sink): A probe. Vector's name `old_probe` works too.");
    expect(text).to.include('  uri  (string; required; allowed: a URL)\n      Destination URI.');
    expect(text).to.include('Example:\n\n  [sinks.p]\n  type = "probe"');
  });
});
