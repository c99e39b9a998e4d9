/**
 * Top-level `enrichment_tables` (file/CSV) and remap's find_enrichment_table_records and
 * get_enrichment_table_record, with Vector's semantics; Vector's two behavior tests that use them.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { lastValueFrom, of, toArray } from 'rxjs';
import fc from 'fast-check';
import * as v from 'valibot';
import { validateCommand } from '../../bin/cli/validate.js';
import { catalog } from '../../connectors/index.js';
import { remapTransform } from '../../connectors/transforms/remap/index.js';
import { componentContext } from '../../lib/component-context.js';
import { GlobalOptionsSchema } from '../../lib/config/global.js';
import { buildConfig, readConfigFiles } from '../../lib/config/load.js';
import type { ConfigProblem } from '../../lib/errors.js';
import { type Event, type EventBatch, type LogEvent, logEvent } from '../../lib/event.js';
import { Timestamp, type Value } from '../../lib/value.js';
import { loadEnrichmentTables, parseCsvRecords, readFileTable } from '../../operators/enrichment/file-table.js';
import { CompileError, type EnrichmentTables, compile } from '../../remap/index.js';
import { parseConfig } from '../connectors/transforms/context.js';
import { runWeir } from '../helpers/weir-process.js';

const dir = mkdtempSync(join(tmpdir(), 'weir-enrichment-'));
let n = 0;
function csv(text: string): string {
  const p = join(dir, `t${n++}.csv`);
  writeFileSync(p, text);
  return p;
}

// tests/data/enrichment.csv of Vector's behavior tests
const TREES = csv('id,tree\n1,oak\n2,ash\n3,yew\n4,beech\n5,yew\n6,beech\n7,yew\n');
const PEOPLE = csv(
  'id,firstname,surname,birth,active\n1,Bob,Smith,1985-05-01,true\n2,Fred,Smith,1985-06-01,false\n3,Jim,Jones,1990-01-01,true\n4,*,Jones,1970-01-01,true\n',
);

const globalsWith = (tables: Record<string, unknown>) => v.parse(GlobalOptionsSchema, { enrichment_tables: tables, timezone: 'UTC' });
/** A table's options as the loader parses them. */
const fileTable = (path: string, schema: Record<string, string> = {}, encoding: Record<string, unknown> = { type: 'csv' }) =>
  globalsWith({ t: { type: 'file', file: { path, encoding }, schema } }).enrichment_tables.t!;

async function runRemap(source: string, events: Event[], tables: Record<string, unknown>): Promise<LogEvent[]> {
  const globals = globalsWith(tables);
  const ctx = componentContext({ kind: 'transform', type: 'remap', globals });
  const out = await lastValueFrom(of(events as EventBatch).pipe(remapTransform.build(parseConfig(remapTransform, { source }), ctx), toArray()));
  return out.flatMap((b) => (Array.isArray(b) ? b : b.events)) as LogEvent[];
}

function tables(): EnrichmentTables {
  const g = globalsWith({ people: fileTable(PEOPLE, { id: 'integer', birth: 'date', active: 'boolean' }), trees: fileTable(TREES) });
  return loadEnrichmentTables(g.enrichment_tables, 'UTC');
}

function run(src: string, event: Value = {}): Value {
  const r = compile(src, { enrichmentTables: tables() }).run(event);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

function runError(src: string): string {
  const r = compile(src, { enrichmentTables: tables() }).run({});
  if (r.ok) throw new Error(`no error: ${JSON.stringify(r.value)}`);
  return r.error;
}

function compileError(src: string, t: EnrichmentTables = tables()): string {
  try {
    compile(src, { enrichmentTables: t });
  } catch (e) {
    if (e instanceof CompileError) return e.message;
    throw e;
  }
  throw new Error(`compiled: ${src}`);
}

const ids = (v: Value) => (v as { id: Value }[]).map((r) => r.id);

describe('remap: enrichment tables', () => {
  describe("Vector's behavior tests (tests/behavior/transforms/remap.yaml)", () => {
    const vectorTables = { test: { type: 'file', file: { path: TREES, encoding: { type: 'csv' } }, schema: { id: 'integer' } } };

    it('remap_function_get_enrichment_table_row', async () => {
      const [e] = await runRemap('. = get_enrichment_table_record!("test", { "id": .id })', [logEvent({ id: 3 })], vectorTables);
      expect(e!.fields.tree).to.equal('yew');
    });

    it('remap_function_find_enrichment_table_rows', async () => {
      const [e] = await runRemap('.trees = find_enrichment_table_records!("test", { "tree": .tree })', [logEvent({ tree: 'yew' })], vectorTables);
      expect(e!.fields.trees).to.deep.equal([
        { id: 3, tree: 'yew' },
        { id: 5, tree: 'yew' },
        { id: 7, tree: 'yew' },
      ]);
    });
  });

  it("Vector's four behavior tests of these functions, as written there, pass under weir test", async function () {
    this.timeout(60_000);
    const q = (src: string) => JSON.stringify(src);
    const transforms = {
      remap_function_get_enrichment_table_row: '    . = get_enrichment_table_record!("test", { "id": .id })\n  ',
      remap_function_find_enrichment_table_rows: '    .trees = find_enrichment_table_records!("test", { "tree": .tree })\n  ',
      remap_metadata:
        '      set_secret("datadog_api_key", "iamanapikey")\n      .key = get_secret("datadog_api_key")\n      remove_secret("datadog_api_key")\n      .empty_key = get_secret("datadog_api_key")\n\n      set_secret("splunk_hec_token", "iamasplunkhectoken")\n      .splunk_hec_token = get_secret("splunk_hec_token")\n      remove_secret("splunk_hec_token")\n      .empty_splunk_hec_token = get_secret("splunk_hec_token")\n  ',
      remap_function_reverse_dns: '    .host = reverse_dns!(.ip)\n  ',
    };
    const tests: [string, string, string][] = [
      ['remap_function_reverse_dns', 'ip: 127.0.0.1', '.host == "localhost"'],
      ['remap_function_get_enrichment_table_row', 'id: 3', '.tree == "yew"'],
      ['remap_function_find_enrichment_table_rows', 'tree: yew', '.trees == [{"id": 3, "tree": "yew"}, {"id": 5, "tree": "yew"}, {"id": 7, "tree": "yew"}]'],
      ['remap_metadata', '{}', '.key == "iamanapikey" && .empty_key == null && .splunk_hec_token == "iamasplunkhectoken" && .empty_splunk_hec_token == null'],
    ];
    const yaml = [
      'transforms:',
      ...Object.entries(transforms).flatMap(([id, src]) => [`  ${id}:`, '    inputs: []', '    type: remap', `    source: ${q(src)}`]),
      'tests:',
      ...tests.flatMap(([id, fields, cond]) => [
        `  - name: ${id}`,
        '    input:',
        `      insert_at: ${id}`,
        '      type: log',
        fields === '{}' ? '      log_fields: {}' : `      log_fields:\n        ${fields}`,
        '    outputs:',
        `      - extract_from: ${id}`,
        '        conditions:',
        '          - type: vrl',
        `            source: ${q(cond)}`,
      ]),
      'enrichment_tables:',
      '  test:',
      '    type: file',
      '    file:',
      `      path: ${TREES}`,
      '      encoding:',
      '        type: csv',
      '    schema:',
      '      id: integer',
    ].join('\n');
    const path = join(dir, `vt${n++}.yaml`);
    writeFileSync(path, yaml);
    const { code, stdout, stderr } = await runWeir(['test', path]);
    expect(code, stdout + stderr).to.equal(0);
    for (const [id] of tests) expect(stdout + stderr).to.include(`test ${id} ... passed`);
    expect(stderr).to.not.include('E900');
  });

  describe('the config', () => {
    const validateText = async (text: string) => {
      let out = '';
      const sink = new Writable({
        write(chunk, _enc, cb) {
          out += chunk;
          cb();
        },
      });
      const p = join(dir, `c${n++}.toml`);
      writeFileSync(p, text);
      const code = await validateCommand({ files: [p], environment: false, skipHealthchecks: true, denyWarnings: false }, sink);
      return { code, out };
    };
    const PIPE = `[sources.in]\ntype = "demo_logs"\nformat = "json"\n[transforms.t]\ntype = "remap"\ninputs = ["in"]\nsource = '.trees = find_enrichment_table_records!("trees", {"tree": "yew"})'\n[sinks.out]\ntype = "blackhole"\ninputs = ["t"]\n`;

    it('a file table with csv encoding validates, with defaults filled in', async () => {
      const { code, out } = await validateText(`[enrichment_tables.trees]\ntype = "file"\nfile.path = "${TREES}"\nfile.encoding.type = "csv"\n` + PIPE);
      expect(code, out).to.equal(0);
      const problems: ConfigProblem[] = [];
      const built = buildConfig(readConfigFiles([join(dir, `c${n - 1}.toml`)], {}, problems), catalog);
      expect(built.config!.globals.enrichment_tables).to.deep.equal({
        trees: { type: 'file', file: { path: TREES, encoding: { type: 'csv', include_headers: true, delimiter: ',' } }, schema: {} },
      });
    });

    it('every problem is named by its path', async () => {
      const { code, out } = await validateText(
        `[enrichment_tables.a]\ntype = "file"\nfile.encoding.type = "csv"\nfile.encoding.delimiter = ";;"\nschema.x = "number"\nextra = 1\n[enrichment_tables.b]\ntype = "nosuch"\n` + PIPE,
      );
      expect(code).to.equal(78);
      expect(out).to.include('enrichment_tables.a.file.path');
      expect(out).to.include('enrichment_tables.a.file.encoding.delimiter: must be a single character');
      expect(out).to.include('enrichment_tables.a.schema.x: must be one of string');
      expect(out).to.include('enrichment_tables.a.extra');
      expect(out).to.include('enrichment_tables.b');
    });

    it('a program naming a table that is not configured does not build', async () => {
      const { code, out } = await validateText(`[enrichment_tables.other]\ntype = "file"\nfile.path = "${TREES}"\n` + PIPE);
      expect(code).to.equal(78);
      expect(out).to.include('invalid argument "table"').and.include('loaded enrichment tables: other');
    });

    it('tables from several files merge', () => {
      const problems: ConfigProblem[] = [];
      const a = join(dir, `m${n++}.toml`);
      const b = join(dir, `m${n++}.toml`);
      writeFileSync(a, `[enrichment_tables.one]\ntype = "file"\nfile.path = "${TREES}"\n` + PIPE.replace('"trees"', '"one"'));
      writeFileSync(b, `[enrichment_tables.two]\ntype = "file"\nfile.path = "${PEOPLE}"\n`);
      const built = buildConfig(readConfigFiles([a, b], {}, problems), catalog);
      expect([...problems, ...built.problems].map((p) => p.message)).to.deep.equal([]);
      expect(Object.keys(built.config!.globals.enrichment_tables).sort()).to.deep.equal(['one', 'two']);
    });
  });

  it('the daemon: stdin → remap with a table → console; secrets pass between two remaps', async function () {
    this.timeout(60_000);
    const owners = csv('id,name,team\n1,ana,db\n2,bo,web\n');
    const config = join(dir, `d${n++}.toml`);
    writeFileSync(
      config,
      [
        `[enrichment_tables.owners]\ntype = "file"\nfile.path = "${owners}"\nfile.encoding.type = "csv"\nschema.id = "integer"`,
        `[sources.in]\ntype = "stdin"`,
        `[transforms.parse]\ntype = "remap"\ninputs = ["in"]\nsource = '. = parse_json!(.message); set_secret("k", "s")'`,
        `[transforms.enrich]\ntype = "remap"\ninputs = ["parse"]\nsource = '''\nowner, err = get_enrichment_table_record("owners", { "id": .owner_id }, select: ["name"])\nif err == null { .owner = owner }\n.k = get_secret("k")\n'''`,
        `[sinks.out]\ntype = "console"\ninputs = ["enrich"]\nencoding.codec = "json"`,
      ].join('\n'),
    );
    const { code, stdout, stderr } = await runWeir(['-c', config], { input: '{"owner_id":2}\n{"owner_id":9}\n' });
    expect(code, stderr).to.equal(0);
    expect(stdout.trim().split('\n').map((l) => JSON.parse(l) as unknown)).to.deep.equal([
      { owner_id: 2, owner: { name: 'bo' }, k: 's' },
      { owner_id: 9, k: 's' },
    ]);
  });

  describe('reading the file', () => {
    it('quoted fields hold delimiters, quotes and line breaks; CRLF and blank lines are fine', () => {
      expect(parseCsvRecords('\ufeffa,b\r\n"x,1","say ""hi"""\r\n\r\n"two\nlines",\n', ',')).to.deep.equal([
        ['a', 'b'],
        ['x,1', 'say "hi"'],
        ['two\nlines', ''],
      ]);
    });

    it('schema converts columns: integer, boolean, date, timestamp with a format, float', () => {
      const p = csv('n;ok;day;at;f;s\n7;yes;02/01/2020;2020-01-02 03:04:05;1.5;x\n');
      const t = readFileTable('t', fileTable(p, { n: 'integer', ok: 'bool', day: 'date|%d/%m/%Y', at: 'timestamp|%F %T', f: 'float' }, { type: 'csv', delimiter: ';', include_headers: true }), 'UTC');
      expect(t.headers).to.deep.equal(['n', 'ok', 'day', 'at', 'f', 's']);
      const [row] = t.rows;
      expect(row!.slice(0, 2)).to.deep.equal([7, true]);
      expect(String(row![2])).to.equal('2020-01-02T00:00:00Z');
      expect(String(row![3])).to.equal('2020-01-02T03:04:05Z');
      expect((row![4] as { value: number }).value).to.equal(1.5);
      expect(row![5]).to.equal('x');
    });

    it('without headers the columns are named "0", "1", …', () => {
      const t = readFileTable('t', fileTable(csv('a,1\nb,2\n'), { '1': 'integer' }, { type: 'csv', include_headers: false }), 'UTC');
      expect(t.headers).to.deep.equal(['0', '1']);
      expect(t.rows).to.deep.equal([
        ['a', 1],
        ['b', 2],
      ]);
    });

    it('a missing file, a short record and a value the schema cannot convert are errors naming the table', () => {
      expect(() => loadEnrichmentTables({ t: fileTable(join(dir, 'none.csv')) }, 'UTC')).to.throw('enrichment_tables.t:');
      expect(() => readFileTable('t', fileTable(csv('a,b\n1\n')), 'UTC')).to.throw('record 2 has 1 fields, but the header has 2');
      expect(() => readFileTable('t', fileTable(csv('a\nx\n'), { a: 'integer' }), 'UTC')).to.throw('unable to parse x found in row 2');
    });

    it('a changed file is read again', () => {
      const p = csv('a\n1\n');
      const cfg = { t: fileTable(p) };
      expect(loadEnrichmentTables(cfg, 'UTC').get('t')!.rows).to.deep.equal([['1']]);
      writeFileSync(p, 'a\n1\n2\n');
      expect(loadEnrichmentTables(cfg, 'UTC').get('t')!.rows).to.deep.equal([['1'], ['2']]);
    });
  });

  describe('searching', () => {
    it('exact matches, all conditions at once', () => {
      expect(ids(run('find_enrichment_table_records!("people", {"surname": "Smith"})'))).to.deep.equal([1, 2]);
      expect(ids(run('find_enrichment_table_records!("people", {"surname": "Smith", "active": true})'))).to.deep.equal([1]);
      expect(run('find_enrichment_table_records!("people", {"surname": "smith"})')).to.deep.equal([]);
    });

    it('case_sensitive: false lowers both strings', () => {
      expect(ids(run('find_enrichment_table_records!("people", {"surname": "smith"}, case_sensitive: false)'))).to.deep.equal([1, 2]);
    });

    it('a date range is inclusive; from or to alone bound one side', () => {
      const src = (range: string) => `find_enrichment_table_records!("people", {"birth": ${range}})`;
      expect(ids(run(src(`{"from": t'1985-05-01T00:00:00Z', "to": t'1985-06-01T00:00:00Z'}`)))).to.deep.equal([1, 2]);
      expect(ids(run(src(`{"from": t'1986-01-01T00:00:00Z'}`)))).to.deep.equal([3]);
      expect(ids(run(src(`{"to": t'1980-01-01T00:00:00Z'}`)))).to.deep.equal([4]);
      expect(runError(src(`{"from": "1985"}`))).to.include('from in condition must be a timestamp');
    });

    it('select keeps the named columns', () => {
      expect(run('find_enrichment_table_records!("people", {"id": 3}, select: ["firstname", "nosuch"])')).to.deep.equal([{ firstname: 'Jim' }]);
    });

    it('a wildcard matches when no row holds the value itself', () => {
      expect(ids(run('find_enrichment_table_records!("people", {"firstname": "Nobody"}, wildcard: "*")'))).to.deep.equal([4]);
      expect(ids(run('find_enrichment_table_records!("people", {"firstname": "Bob"}, wildcard: "*")'))).to.deep.equal([1]);
    });

    it('get_enrichment_table_record wants exactly one row', () => {
      expect(run('get_enrichment_table_record!("people", {"id": .id}, select: ["firstname"])', { id: 2 })).to.deep.equal({ firstname: 'Fred' });
      expect(runError('get_enrichment_table_record!("people", {"id": 99})')).to.include('No rows found');
      expect(runError('get_enrichment_table_record!("people", {"surname": "Smith"})')).to.include('More than one row found');
    });

    it('values keep their kinds: an integer column does not match the string "1"', () => {
      expect(run('find_enrichment_table_records!("people", {"id": "1"})')).to.deep.equal([]);
      expect(ids(run('find_enrichment_table_records!("trees", {"id": "1"})'))).to.deep.equal(['1']);
      expect((run('get_enrichment_table_record!("people", {"id": 1})') as { birth: Value }).birth).to.be.instanceOf(Timestamp);
    });

    it('the indexed lookup finds what a scan of every row by the same rules finds', () => {
      const cell = fc.oneof(fc.constantFrom('a', 'A', 'b', 'B', '*', ''), fc.integer({ min: 0, max: 2 }), fc.constant(null));
      const cols = ['c0', 'c1', 'c2'];
      const same = (a: Value, b: Value, cs: boolean) => (!cs && typeof a === 'string' && typeof b === 'string' ? a.toLowerCase() === b.toLowerCase() : a === b);
      fc.assert(
        fc.property(
          fc.array(fc.tuple(cell, cell, cell), { maxLength: 12 }),
          fc.dictionary(fc.constantFrom(...cols), cell, { maxKeys: 3 }),
          fc.boolean(),
          fc.option(fc.constantFrom('*', 'a', 'B'), { nil: undefined }),
          (rows, condition, cs, wildcard) => {
            const table = new Map([['t', { headers: cols, rows: rows.map((r) => [...r] as Value[]) }]]);
            const fields = Object.keys(condition).map((k) => cols.indexOf(k));
            const holds = (row: Value[], pick: (f: number) => Value) => fields.every((f, i) => same(row[f]!, pick(i), cs));
            const values = Object.values(condition);
            const exact = table.get('t')!.rows.filter((row) => holds(row, (i) => values[i]!));
            const candidates = exact.length > 0 || wildcard === undefined ? exact : table.get('t')!.rows.filter((row) => holds(row, () => wildcard));
            const want = candidates
              .filter((row) => fields.every((f, i) => same(row[f]!, values[i]!, cs) || (wildcard !== undefined && same(row[f]!, wildcard, cs))))
              .map((row) => Object.fromEntries(cols.map((c, i) => [c, row[i]!])));
            const literal = `{${Object.entries(condition).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')}}`;
            const src = `find_enrichment_table_records!("t", ${literal}, case_sensitive: ${cs}${wildcard === undefined ? '' : `, wildcard: ${JSON.stringify(wildcard)}`})`;
            const r = compile(src, { enrichmentTables: table }).run({});
            expect(r.ok && r.value, src).to.deep.equal(want);
          },
        ),
        { numRuns: 500, seed: 15 },
      );
    });

    it('compile time: the table must be a loaded one, named by a literal; exact-match fields must be columns; both are fallible', () => {
      expect(compileError('find_enrichment_table_records!("nope", {"id": 1})')).to.include('invalid enum variant; loaded enrichment tables: people, trees');
      expect(compileError('t = "people"\nfind_enrichment_table_records!(.t, {"id": 1})')).to.include('expected a literal table name');
      expect(compileError('find_enrichment_table_records!("people", {"nosuch": 1, "id": 1})')).to.include("Field(s) 'nosuch' missing from dataset");
      expect(compileError('find_enrichment_table_records!("people", {"id": 1}, case_sensitive: .c)')).to.include('expected a literal boolean');
      expect(compileError('find_enrichment_table_records("people", {"id": 1})')).to.include('error[E100]');
      expect(compileError('get_enrichment_table_record!("people", {"id": 1})', new Map())).to.include('loaded enrichment tables: none');
    });
  });
});
