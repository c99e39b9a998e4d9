/**
 * `weir test`: Vector's unit-test examples, virtual-time reduce and throttle tests, the output and
 * exit code of failing tests, build errors, and the JUnit report. Most cases run the command in
 * process; two go through the real CLI for its argument handling and exit codes.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { testCommand } from '../../../bin/cli/test.js';
import { LogRoot } from '../../../lib/log.js';
import { repoRoot, runWeir } from '../../helpers/weir-process.js';

const fixtures = join(repoRoot, 'spec/bin/cli/fixtures/unit-tests');
const fixture = (name: string) => join(fixtures, name);

/** Runs the command in process; stdout and stderr as text. */
function run(files: string[], junitReports: string[] = []): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const sink = (add: (s: string) => void) =>
    new Writable({
      write(chunk: Buffer, _enc, done) {
        add(chunk.toString());
        done();
      },
    });
  const code = testCommand({ files, junitReports, log: new LogRoot('error', { write() {} }) }, sink((s) => (out += s)), sink((s) => (err += s)));
  return { code, out, err };
}

describe('weir test', () => {
  let dir: string;
  const savedEnv = process.env.ENV;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'weir-test-'));
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    if (savedEnv === undefined) delete process.env.ENV;
    else process.env.ENV = savedEnv;
  });

  describe("Vector's unit-test examples", () => {
    it('pass through the CLI: Running tests, a line per test, exit 0', async () => {
      const r = await runWeir(['test', fixture('vector-docs.yaml')], { env: { ENV: 'production', WEIR_LOG: 'error' } });
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.equal(
        [
          'Running tests',
          'test Test for the add_metadata transform ... passed',
          'test Filter out non-production events ... passed',
          'test Multiple chained remap transforms ... passed',
          'test add_unique_id_test ... passed',
          'test raw and vrl inputs ... passed',
          '',
        ].join('\n'),
      );
    });

    it('a metric example fails without the variable its transform reads, showing the metric it got', () => {
      delete process.env.ENV;
      const r = run([fixture('vector-docs.yaml')]);
      expect(r.code).to.equal(78);
      expect(r.out).to.include('test add_unique_id_test ... failed');
      expect(r.out).to.include('test Test for the add_metadata transform ... passed');
      expect(r.out).to.include(
        [
          '\nfailures:\n',
          'test add_unique_id_test:\n',
          'check[0] for transforms ["add_env_to_metric"] failed conditions:\n',
          '  condition[0]: source execution failed: function call error for "assert_eq" at (64:107): assertion failed: "" == "production"\n',
          'output payloads from ["add_env_to_metric"] (events encoded as JSON):',
          '  {"name":"website_hits","tags":{"environment":""},"kind":"absolute","counter":{"value":1}}\n',
        ].join('\n'),
      );
    });

    it('named outputs, several outputs in one check, and every condition type', () => {
      const r = run([fixture('named-outputs.yaml')]);
      expect(r.out + r.err).to.equal('Running tests\ntest route outputs by name ... passed\n');
      expect(r.code).to.equal(0);
    });
  });

  describe('virtual time', () => {
    it('reduce expiry and throttle windows follow the inputs\' `at` offsets', () => {
      const r = run([fixture('virtual-time.toml')]);
      expect(r.out).to.equal(
        [
          'Running tests',
          'test reduce merges events inside the window ... passed',
          'test reduce expires a group after expire_after_ms of virtual time ... passed',
          'test throttle drops inside the window and passes after it ... passed',
          '',
        ].join('\n'),
      );
      expect(r.code).to.equal(0);
    });

    it('the same inputs all at time 0: the group does not expire and the throttle drops the later events', () => {
      const text = readFileSync(fixture('virtual-time.toml'), 'utf8').replace(/^at = \d+\n/gm, '');
      const file = join(dir, 'no-offsets.toml');
      writeFileSync(file, text);
      const r = run([file]);
      expect(r.code).to.equal(78);
      expect(r.out).to.include('test reduce merges events inside the window ... passed');
      expect(r.out).to.include('test reduce expires a group after expire_after_ms of virtual time ... failed');
      expect(r.out).to.include('test throttle drops inside the window and passes after it ... failed');
      expect(r.out).to.include('expected 2 events from transforms ["sessions"], but received 1');
      expect(r.out).to.include('expected 3 events from transforms ["limit"], but received 2');
    });

    it('offsets of hours: expiry and windows still counted in virtual time', () => {
      const file = join(dir, 'hours.toml');
      writeFileSync(
        file,
        readFileSync(fixture('virtual-time.toml'), 'utf8').replace('at = 45000', 'at = 36000000').replace('at = 90000', 'at = 72000000'),
      );
      const r = run([file]);
      expect(r.out).to.include('test reduce expires a group after expire_after_ms of virtual time ... passed');
      expect(r.out).to.include('test throttle drops inside the window and passes after it ... passed');
      expect(r.code, r.out).to.equal(0);
    });
  });

  describe('failures', () => {
    it('exit 78 through the CLI, with the details and the output events, and a JUnit report', async () => {
      const report = join(dir, 'report.xml');
      const second = join(dir, 'second.xml');
      const r = await runWeir(['test', '--config', fixture('failing.toml'), '--junit-report', `${report},${second}`], { env: { WEIR_LOG: 'error' } });
      expect(r.code).to.equal(78);
      const out = r.stdout.replace(/"timestamp":"[^"]+"/g, '"timestamp":"T"');
      expect(out).to.equal(
        [
          'Running tests',
          'test passes ... passed',
          'test wrong level ... failed',
          'test nothing gets through ... failed',
          'test wrong count ... failed',
          'test unexpected output ... failed',
          '',
          'failures:',
          '',
          'test wrong level:',
          '',
          'check[0] for transforms ["parse"] failed conditions:',
          '',
          '  condition[0]: source execution failed: function call error for "assert_eq" at (0:50): level should be warn',
          '',
          'output payloads from ["parse"] (events encoded as JSON):',
          '  {"message":"hello","timestamp":"T","level":"info"}',
          '',
          '',
          'test nothing gets through:',
          '',
          'checks for transforms ["only_errors"] failed: no events received. Topology may be disconnected or transform is missing inputs.',
          '',
          '',
          'test wrong count:',
          '',
          'expected 3 events from transforms ["parse"], but received 2',
          '',
          'output payloads from ["parse"] (events encoded as JSON):',
          '  {"message":"one","timestamp":"T","level":"info"}',
          '  {"message":"two","timestamp":"T","level":"info"}',
          '',
          '',
          'test unexpected output:',
          '',
          'check for transforms ["parse"] failed: expected no outputs',
          '',
          '',
        ].join('\n'),
      );

      const xml = readFileSync(report, 'utf8');
      expect(readFileSync(second, 'utf8')).to.equal(xml);
      expect(xml).to.match(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="weir unit tests" tests="5" failures="4" errors="0" time="[\d.]+">/);
      expect(xml).to.match(/<testsuite name="Test Suite" tests="5" disabled="0" errors="0" failures="4" time="[\d.]+">/);
      const cases = [...xml.matchAll(/<testcase name="([^"]*)" time="[\d.]+"(\/?)>/g)].map((m) => [m[1], m[2] === '/' ? 'passed' : 'failed']);
      expect(cases).to.deep.equal([
        ['passes', 'passed'],
        ['wrong level', 'failed'],
        ['nothing gets through', 'failed'],
        ['wrong count', 'failed'],
        ['unexpected output', 'failed'],
      ]);
      expect(xml.match(/<failure /g)).to.have.length(4);
      expect(xml).to.include('<failure message="expected 3 events from transforms [&quot;parse&quot;], but received 2">');
      expect(xml).to.include('  {&quot;message&quot;:&quot;two&quot;,');
      expect(xml.trimEnd().endsWith('</testsuites>')).to.equal(true);
    });

    it('tests that cannot be built: none runs, every problem is named, exit 78', () => {
      const r = run([fixture('build-error.toml')]);
      expect(r.code).to.equal(78);
      expect(r.out).to.equal('Running tests\n');
      expect(r.err).to.equal(
        [
          'Failed to execute tests:',
          "Failed to build test 'bad target':",
          "  inputs[0]: unable to locate target transform 'nowhere'",
          "  Invalid extract_from target in test 'bad target': 'missing' does not exist.",
          '',
        ].join('\n'),
      );
    });

    it('malformed test tables are named with their option paths', () => {
      const file = join(dir, 'malformed.toml');
      writeFileSync(
        file,
        `[transforms.t]\ntype = "remap"\ninputs = ["s"]\nsource = ".a = 1"\n[sources.s]\ntype = "stdin"\n[sinks.k]\ntype = "blackhole"\ninputs = ["t"]\n` +
          `[[tests]]\nname = "typo"\nno_outputs_from = ["t"]\n[[tests.inputs]]\ninsert_at = "t"\ntype = "json"\nvalu = "x"\n` +
          `[[tests]]\nname = "no outputs"\n[[tests.inputs]]\ninsert_at = "t"\nvalue = "x"\nat = -1\n`,
      );
      const r = run([file]);
      expect(r.code).to.equal(78);
      expect(r.err).to.include("Failed to build test 'typo':\n  inputs[0].type: must be one of \"raw\", \"log\", \"metric\", \"vrl\"; got \"json\"");
      expect(r.err).to.include('inputs[0].valu: unknown option; did you mean "value"?');
      expect(r.err).to.include("Failed to build test 'no outputs':\n  inputs[0].at: must be at least 0; got number -1");
    });

    it('inputs missing what their type needs, or with a malformed metric, are named', () => {
      const file = join(dir, 'inputs.yaml');
      writeFileSync(
        file,
        [
          'transforms: { t: { type: remap, inputs: [s], source: ".a = 1" } }',
          'tests:',
          '  - name: incomplete',
          '    no_outputs_from: [t]',
          '    inputs:',
          '      - { insert_at: t }',
          '      - { insert_at: t, type: log }',
          '      - { insert_at: t, type: metric, metric: { name: m, kind: sometimes, counter: { value: 1 } } }',
          '      - { insert_at: t, type: vrl, source: ". = 1" }',
          '',
        ].join('\n'),
      );
      const r = run([file]);
      expect(r.code).to.equal(78);
      expect(r.err).to.include("  inputs[0]: input type 'raw' requires the field 'value'\n");
      expect(r.err).to.include("  inputs[1]: input type 'log' requires the field 'log_fields'\n");
      expect(r.err).to.include('  inputs[2]: invalid metric: metric.kind must be "absolute" or "incremental"\n');
      expect(r.err).to.include('  inputs[3]: the vrl input must leave an object as the event.');
    });

    it('a test without outputs, or conditions with a count of 0, is refused', () => {
      const file = join(dir, 'shape.yaml');
      writeFileSync(
        file,
        [
          'sources: { s: { type: stdin } }',
          'transforms: { t: { type: remap, inputs: [s], source: ".a = 1" } }',
          'sinks: { k: { type: blackhole, inputs: [t] } }',
          'tests:',
          '  - name: empty',
          '    inputs: [{ insert_at: t, value: x }]',
          '  - name: zero',
          '    inputs: [{ insert_at: t, value: x }]',
          '    outputs: [{ extract_from: t, expected_event_count: 0, conditions: [".a == 1"] }]',
          '',
        ].join('\n'),
      );
      const r = run([file]);
      expect(r.code).to.equal(78);
      expect(r.err).to.include("Failed to build test 'empty':\n  unit test must contain at least one of `outputs` or `no_outputs_from`.");
      expect(r.err).to.include('output for ["t"] has expected_event_count of 0 but also defines conditions');
    });

    it('a config that does not load: its problems, exit 78', () => {
      const file = join(dir, 'bad.toml');
      writeFileSync(file, `[transforms.t]\ntype = "remap"\ninputs = ["s"]\n`);
      const r = run([file]);
      expect(r.code).to.equal(78);
      expect(r.err).to.include('Failed to execute tests:');
      expect(r.err).to.include('transforms.t');
    });
  });

  it('a transform that does not build stops the run before any test', () => {
    const file = join(dir, 'broken-remap.toml');
    writeFileSync(
      file,
      `[transforms.t]\ntype = "remap"\ninputs = ["s"]\nsource = ".a = "\n[[tests]]\nname = "never runs"\n[[tests.inputs]]\ninsert_at = "t"\nvalue = "x"\n[[tests.outputs]]\nextract_from = "t"\n`,
    );
    const r = run([file]);
    expect(r.code).to.equal(78);
    expect(r.out).to.equal('Running tests\n');
    expect(r.err).to.match(/^Failed to execute tests:\ntransforms\.t\.source: remap program does not compile:/);
  });

  it('a config folder: components and tests one per file (tests/<name>.yaml), through the CLI', async () => {
    const root = join(dir, 'folder');
    mkdirSync(join(root, 'transforms'), { recursive: true });
    mkdirSync(join(root, 'tests'));
    writeFileSync(join(root, 'transforms', 'shout.yaml'), 'type: remap\ninputs: [in]\nsource: .message = upcase!(.message)\n');
    writeFileSync(join(root, 'tests', 'shouts.yaml'), 'inputs: [{ insert_at: shout, value: hi }]\noutputs: [{ extract_from: shout, conditions: [\'.message == "HI"\'] }]\n');
    const r = await runWeir(['test', '-C', root]);
    expect(r.stdout).to.equal('Running tests\ntest shouts ... passed\n');
    expect(r.code, r.stderr).to.equal(0);
  });

  it('a config without tests: "No tests found.", exit 0', () => {
    const r = run([join(repoRoot, 'config/examples/route-and-filter.toml')]);
    expect(r.out).to.equal('Running tests\nNo tests found.\n');
    expect(r.code).to.equal(0);
  });

  it('a config of transforms and tests alone (no sources or sinks) runs', () => {
    const file = join(dir, 'transforms-only.yaml');
    writeFileSync(
      file,
      [
        'transforms:',
        '  up: { type: remap, inputs: [anything], source: ".message = upcase!(.message)" }',
        'tests:',
        '  - name: upcase',
        '    input: { insert_at: up, value: hello }',
        '    outputs: [{ extract_from: up, conditions: [{ type: vrl, source: \'.message == "HELLO"\' }] }]',
        '',
      ].join('\n'),
    );
    const r = run([file]);
    expect(r.err).to.equal('');
    expect(r.out).to.equal('Running tests\ntest upcase ... passed\n');
  });
});
