/**
 * `weir generate-schema`: the schema accepts every configuration in the repository (config/, the
 * unit-test fixtures) and rejects wrong options, types and values. Checked with the small JSON
 * Schema validator below, which covers the keywords the generator writes.
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { configJsonSchema, generateSchemaCommand } from '../../../bin/cli/generate-schema.js';
import { components } from '../../../connectors/index.js';
import { parseConfigText, readConfigFiles } from '../../../lib/config/load.js';
import type { ConfigProblem } from '../../../lib/errors.js';
import { repoRoot, runWeir } from '../../helpers/weir-process.js';

type Schema = boolean | { [k: string]: unknown };

const kindOf = (x: unknown): string => {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'array';
  if (x instanceof Date) return 'string';
  if (typeof x === 'number') return Number.isInteger(x) ? 'integer' : 'number';
  return typeof x;
};
const typeMatches = (x: unknown, t: string) => kindOf(x) === t || (t === 'number' && kindOf(x) === 'integer');
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Errors of `data` against `schema` (draft 2020-12 subset), each with its JSON pointer. */
function validate(root: Schema, data: unknown): string[] {
  const walk = (schema: Schema, x: unknown, at: string): string[] => {
    if (schema === true) return [];
    if (schema === false) return [`${at}: not allowed`];
    const s = schema;
    const errors: string[] = [];
    if (typeof s.$ref === 'string') {
      const target = s.$ref.replace(/^#\//, '').split('/').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], root);
      errors.push(...walk(target as Schema, x, at));
    }
    if (s.type !== undefined) {
      const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
      if (!types.some((t) => typeMatches(x, t))) return [...errors, `${at}: must be ${types.join(' or ')}, got ${kindOf(x)}`];
    }
    if (s.enum && !(s.enum as unknown[]).some((e) => same(e, x))) errors.push(`${at}: must be one of ${JSON.stringify(s.enum)}`);
    if ('const' in s && !same(s.const, x)) errors.push(`${at}: must be ${JSON.stringify(s.const)}`);
    if (typeof x === 'number') {
      if (typeof s.minimum === 'number' && x < s.minimum) errors.push(`${at}: below ${s.minimum}`);
      if (typeof s.maximum === 'number' && x > s.maximum) errors.push(`${at}: above ${s.maximum}`);
      if (typeof s.exclusiveMinimum === 'number' && x <= s.exclusiveMinimum) errors.push(`${at}: not above ${s.exclusiveMinimum}`);
      if (typeof s.exclusiveMaximum === 'number' && x >= s.exclusiveMaximum) errors.push(`${at}: not below ${s.exclusiveMaximum}`);
    }
    if (typeof x === 'string') {
      if (typeof s.minLength === 'number' && x.length < s.minLength) errors.push(`${at}: shorter than ${s.minLength}`);
      if (typeof s.maxLength === 'number' && x.length > s.maxLength) errors.push(`${at}: longer than ${s.maxLength}`);
      if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(x)) errors.push(`${at}: does not match ${s.pattern}`);
    }
    if (Array.isArray(x)) {
      if (typeof s.minItems === 'number' && x.length < s.minItems) errors.push(`${at}: fewer than ${s.minItems} items`);
      if (typeof s.maxItems === 'number' && x.length > s.maxItems) errors.push(`${at}: more than ${s.maxItems} items`);
      const prefix = (s.prefixItems as Schema[] | undefined) ?? [];
      x.forEach((item, i) => {
        if (i < prefix.length) errors.push(...walk(prefix[i]!, item, `${at}/${i}`));
        else if (s.items !== undefined) errors.push(...walk(s.items as Schema, item, `${at}/${i}`));
      });
    }
    if (kindOf(x) === 'object') {
      const o = x as Record<string, unknown>;
      const props = (s.properties as Record<string, Schema> | undefined) ?? {};
      for (const r of (s.required as string[] | undefined) ?? []) if (!(r in o)) errors.push(`${at}: missing ${r}`);
      for (const [k, val] of Object.entries(o)) {
        if (s.propertyNames !== undefined) errors.push(...walk(s.propertyNames as Schema, k, `${at}/${k} (name)`));
        if (k in props) errors.push(...walk(props[k]!, val, `${at}/${k}`));
        else if (s.additionalProperties !== undefined) errors.push(...walk(s.additionalProperties as Schema, val, `${at}/${k}`));
      }
    }
    if (s.allOf) for (const sub of s.allOf as Schema[]) errors.push(...walk(sub, x, at));
    if (s.anyOf && !(s.anyOf as Schema[]).some((sub) => walk(sub, x, at).length === 0)) {
      const branches = (s.anyOf as Schema[]).map((sub) => walk(sub, x, at));
      errors.push(`${at}: matches no alternative (${branches.map((b) => b[0]).join(' | ')})`);
    }
    if (s.oneOf && (s.oneOf as Schema[]).filter((sub) => walk(sub, x, at).length === 0).length !== 1) errors.push(`${at}: must match exactly one alternative`);
    if (s.not !== undefined && walk(s.not as Schema, x, at).length === 0) errors.push(`${at}: matches what is not allowed`);
    if (s.if !== undefined) {
      const holds = walk(s.if as Schema, x, at).length === 0;
      if (holds && s.then !== undefined) errors.push(...walk(s.then as Schema, x, at));
      if (!holds && s.else !== undefined) errors.push(...walk(s.else as Schema, x, at));
    }
    return errors;
  };
  return walk(root, data, '');
}

/** Every configuration file in the repository, parsed as the loader parses it. */
function repositoryConfigs(): string[] {
  const dirs = ['config', 'config/examples', 'spec/bin/cli/fixtures/unit-tests'].map((d) => join(repoRoot, d));
  return dirs.flatMap((d) => readdirSync(d).filter((f) => /\.(toml|ya?ml|json)$/.test(f)).map((f) => join(d, f)));
}

function parse(text: string, format: 'toml' | 'yaml' | 'json'): unknown {
  const problems: ConfigProblem[] = [];
  const parsed = parseConfigText(text, format, undefined, {}, problems);
  expect(problems).to.deep.equal([]);
  return parsed!.data;
}

describe('weir generate-schema', () => {
  const schema = configJsonSchema() as Schema;
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'weir-schema-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('has a definition for every catalog component, discriminated by type (aliases included)', () => {
    const s = schema as { $defs: Record<string, { properties: { type: { enum: string[] } } }>; properties: Record<string, { additionalProperties: { properties: { type: { enum: string[] } } } }> };
    for (const c of components) {
      const def = s.$defs[`${c.kind}.${c.type}`];
      expect(def, `${c.kind}.${c.type}`).to.not.equal(undefined);
      expect(s.properties[`${c.kind}s`]!.additionalProperties.properties.type.enum).to.include.members([c.type, ...(c.aliases ?? [])]);
    }
  });

  it('accepts every configuration in the repository', () => {
    const files = repositoryConfigs();
    expect(files.length).to.be.greaterThan(15);
    for (const file of files) {
      const problems: ConfigProblem[] = [];
      const [parsed] = readConfigFiles([file], { ...process.env, HOME: '/home/weir' }, problems);
      expect(problems, file).to.deep.equal([]);
      // Vector's guide writes a transform under test with `inputs: []`, which only `weir test` accepts
      const expected = file.endsWith('vector-docs.yaml') ? ['/transforms/add_env_to_metric/inputs: fewer than 1 items'] : [];
      expect(validate(schema, parsed!.data), file).to.deep.equal(expected);
    }
  });

  it("accepts Vector's type names and shorthand forms", () => {
    const alias = components.find((c) => c.kind === 'sink' && c.aliases?.length)!;
    expect(alias, 'a sink with a Vector alias').to.not.equal(undefined);
    const data = parse(
      `[sources.in]\ntype = "stdin"\n[sinks.out]\ntype = "console"\ninputs = ["in"]\nencoding.codec = "json"\nhealthcheck = false\nbuffer = [{ type = "memory", max_events = 10 }]\n`,
      'toml',
    );
    expect(validate(schema, data)).to.deep.equal([]);
    const sink = (schema as { properties: { sinks: { additionalProperties: { properties: { type: { enum: string[] } } } } } }).properties.sinks.additionalProperties.properties.type.enum;
    expect(sink).to.include(alias.aliases![0]);
  });

  it('rejects an unknown option, with where it is', () => {
    const data = parse(`[sources.in]\ntype = "stdin"\n[sinks.out]\ntype = "console"\ninputs = ["in"]\nencoding.codec = "json"\nbogus = 1\n`, 'toml');
    const errors = validate(schema, data);
    expect(errors).to.include('/sinks/out/bogus: not allowed');
  });

  it('rejects a wrong type name, a wrong kind of value, a value out of range and a missing option', () => {
    expect(validate(schema, parse('sources: { in: { type: nope } }\n', 'yaml'))).to.include('/sources/in/type: must be one of ' + JSON.stringify((schema as { properties: { sources: { additionalProperties: { properties: { type: { enum: string[] } } } } } }).properties.sources.additionalProperties.properties.type.enum));
    expect(validate(schema, parse('transforms: { t: { type: throttle, inputs: [a], threshold: ten, window_secs: 1 } }\n', 'yaml'))).to.include('/transforms/t/threshold: must be integer, got string');
    expect(validate(schema, parse('transforms: { t: { type: throttle, inputs: [a], threshold: 0, window_secs: 1 } }\n', 'yaml'))).to.include('/transforms/t/threshold: below 1');
    expect(validate(schema, parse('transforms: { t: { type: throttle, inputs: [a], threshold: 1.5, window_secs: 1 } }\n', 'yaml'))).to.include('/transforms/t/threshold: must be integer, got number');
    expect(validate(schema, parse('transforms: { t: { type: throttle, inputs: [a], window_secs: 1 } }\n', 'yaml'))).to.include('/transforms/t: missing threshold');
    expect(validate(schema, parse('transforms: { t: { type: throttle, inputs: [], threshold: 1, window_secs: 1 } }\n', 'yaml'))).to.include('/transforms/t/inputs: fewer than 1 items');
  });

  it('rejects an unknown global option and a malformed unit test', () => {
    expect(validate(schema, parse('{"data_dirr": "/tmp"}', 'json'))).to.include('/data_dirr: not allowed');
    expect(validate(schema, parse('{"api": {"enabled": "yes"}}', 'json'))).to.include('/api/enabled: must be boolean, got string');
    const errors = validate(schema, parse('[[tests]]\nname = "t"\n[[tests.inputs]]\ninsert_at = "x"\ntype = "json"\n', 'toml'));
    expect(errors).to.include('/tests/0/inputs/0/type: must be one of ["raw","log","metric","vrl"]');
  });

  it('the CLI prints the schema, or writes it once to --output-path', async () => {
    const printed = await runWeir(['generate-schema']);
    expect(printed.code, printed.stderr).to.equal(0);
    expect(JSON.parse(printed.stdout)).to.deep.equal(JSON.parse(JSON.stringify(schema)));

    const path = join(dir, 'schema.json');
    let out = '';
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        out += chunk.toString();
        done();
      },
    });
    expect(generateSchemaCommand({ outputPath: path }, sink, sink)).to.equal(0);
    expect(existsSync(path)).to.equal(true);
    expect(JSON.parse(readFileSync(path, 'utf8'))).to.deep.equal(JSON.parse(printed.stdout));
    expect(out).to.equal(`Schema successfully written to "${path}"\n`);
    expect(generateSchemaCommand({ outputPath: path }, sink, sink)).to.equal(73);
  });
});
