import { expect } from 'chai';
import * as v from 'valibot';
import { components } from '../../../connectors/index.js';
import { mapIssue } from '../../../lib/config/issues.js';
import { sinkObject } from '../../../lib/config/options/envelope.js';

const keys = (schema: { entries: object }) => Object.keys(schema.entries);
const issues = (schema: v.GenericSchema, input: unknown) => {
  const r = v.safeParse(schema, input);
  return r.success ? [] : r.issues.map((i) => `${(i.path ?? []).map((p) => String(p.key)).join('.')}: ${i.message}`);
};

describe('sink envelope', () => {
  it('orders options type, inputs, the sink\'s own, then buffer, acknowledgements, healthcheck', () => {
    expect(keys(sinkObject('x', { target: v.string(), mode: v.string() }))).to.deep.equal(['type', 'inputs', 'target', 'mode', 'buffer', 'acknowledgements', 'healthcheck']);
    expect(keys(sinkObject('x', { uri: v.string() }, { proxy: true }))).to.deep.equal(['type', 'inputs', 'uri', 'proxy', 'buffer', 'acknowledgements', 'healthcheck']);
  });

  it('applies the common sink defaults', () => {
    const out = v.parse(sinkObject('x', {}), { type: 'x', inputs: ['a'] });
    expect(out).to.deep.equal({
      type: 'x',
      inputs: ['a'],
      buffer: { type: 'memory', max_events: 500, when_full: 'block' },
      acknowledgements: {},
      healthcheck: { enabled: true },
    });
  });

  it('requires type and inputs and rejects unknown options', () => {
    const schema = sinkObject('x', {});
    expect(issues(schema, { type: 'y', inputs: ['a'] })[0]).to.match(/^type: /);
    expect(issues(schema, { type: 'x' })[0]).to.match(/^inputs: /);
    expect(issues(schema, { type: 'x', inputs: [] })).to.deep.equal(['inputs: must list at least one input']);
    expect(issues(schema, { type: 'x', inputs: ['a'], bogus: 1 })[0]).to.match(/^bogus: /);
  });

  it('offers proxy, healthcheck.uri and disk_v1 only to the sinks that opt in', () => {
    const plain = sinkObject('x', {});
    const disk_v1 = { type: 'x', inputs: ['a'], buffer: { type: 'disk_v1', max_size: 300_000_000 } };
    expect(issues(plain, { type: 'x', inputs: ['a'], proxy: { enabled: false } })[0]).to.match(/^proxy: /);
    // Vector takes healthcheck.uri on every sink; where the check queries none it is kept aside, unused
    expect(v.parse(plain, { type: 'x', inputs: ['a'], healthcheck: { uri: 'http://h/' } }).healthcheck).to.deep.equal({ enabled: true, ignored_uri: 'http://h/' });
    expect(issues(plain, { type: 'x', inputs: ['a'], healthcheck: { url: 'http://h/' } })[0]).to.match(/^healthcheck\.url: /);
    // `buffer` is one stage or a list of them: the report names the option of the stage it was given
    const refused = v.safeParse(plain, disk_v1);
    expect(refused.success ? [] : refused.issues.flatMap((i) => mapIssue(plain, i)).map((m) => m.path)).to.deep.equal(['buffer.type']);

    const rich = sinkObject('x', {}, { proxy: true, healthcheckUri: true, allowDiskV1: true });
    const out = v.parse(rich, { type: 'x', inputs: ['a'], proxy: { enabled: false }, healthcheck: { uri: 'http://h/' } });
    expect(out.proxy).to.deep.equal({ enabled: false, no_proxy: [] });
    expect(out.healthcheck).to.deep.equal({ enabled: true, uri: 'http://h/' });
    expect(v.parse(rich, disk_v1).buffer.type).to.equal('disk_v1');
  });

  it('is part of every sink in the catalog', () => {
    const sinks = components.filter((c) => c.kind === 'sink');
    expect(sinks.length).to.be.greaterThan(4);
    for (const def of sinks) {
      const schema = def.schema as unknown as { entries?: object; pipe?: { entries?: object }[] };
      const entries = schema.entries ?? schema.pipe?.[0]?.entries;
      expect(entries, def.type).to.not.equal(undefined);
      expect(Object.keys(entries!).slice(0, 2), def.type).to.deep.equal(['type', 'inputs']);
      expect(entries, def.type).to.include.keys('buffer', 'acknowledgements', 'healthcheck');
    }
  });
});
