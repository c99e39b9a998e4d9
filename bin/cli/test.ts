/**
 * `weir test`: runs the unit tests of a configuration (`[[tests]]`) against its transforms, with
 * Vector's output and exit codes: 0 when every test passed or there are none, 78 when a test
 * failed, could not be built, or the configuration does not load.
 */
import { writeFileSync } from 'node:fs';
import { NEVER } from 'rxjs';
import * as v from 'valibot';
import { catalog } from '../../connectors/index.js';
import { type ComponentConfig, type Config, type RawConfigFile, buildConfig, readConfigFiles } from '../../lib/config/load.js';
import type { ConfigSource } from '../../lib/config/paths.js';
import { defineSink, defineSource } from '../../lib/component.js';
import { type ConfigProblem, formatProblem } from '../../lib/errors.js';
import { LogRoot, levelFrom } from '../../lib/log.js';
import { buildGraph } from '../../lib/topology/graph.js';
import { EXIT_CONFIG } from './exit.js';
import { type CaseResult, junitReport } from './unit-test/junit.js';
import { prepareTests, runTest, transformBuildErrors } from './unit-test/run.js';

export interface TestOptions {
  readonly files: readonly (string | ConfigSource)[];
  readonly problems?: readonly ConfigProblem[];
  /** Where to write JUnit XML (each gets the same report). */
  readonly junitReports: readonly string[];
  /** Where the transforms log; default standard error at warn and above (WEIR_LOG lowers it). */
  readonly log?: LogRoot;
}

/**
 * Placeholders that let a configuration of transforms alone be wired: unit tests replace the
 * sources with their inputs and the sinks with their checks, so neither needs to exist, and (as
 * in Vector) an input naming a component that is not there is no error in a test.
 */
const placeholderSink = defineSink({ type: 'unit_test', summary: 'unit test output', schema: v.any(), input: 'any', build: () => () => NEVER });

function placeholderSource(id: string, names: ReadonlySet<string | undefined>): ComponentConfig {
  const def = defineSource({
    type: 'unit_test',
    summary: 'unit test input',
    schema: v.unknown(),
    outputs: () => [...names].map((name) => (name === undefined ? { type: 'any' as const } : { name, type: 'any' as const })),
    build: () => NEVER,
  });
  return { id, kind: 'source', def, options: {}, raw: {}, file: undefined };
}

function withPlaceholders(config: Config): Config {
  const components = new Map<string, ComponentConfig>(config.components);
  const missing = new Map<string, Set<string | undefined>>();
  for (const c of config.components.values()) {
    if (c.kind !== 'transform') continue;
    for (const input of c.options.inputs ?? []) {
      if (/[*?[]/.test(input)) continue;
      const dot = input.indexOf('.');
      const id = dot < 0 ? input : input.slice(0, dot);
      if (components.has(id)) continue;
      const names = missing.get(id) ?? new Set();
      names.add(dot < 0 ? undefined : input.slice(dot + 1));
      missing.set(id, names);
    }
  }
  for (const [id, names] of missing) components.set(id, placeholderSource(id, names));
  const has = (kind: string) => [...components.values()].some((c) => c.kind === kind);
  if (!has('source')) components.set('\0unit_test_source', placeholderSource('\0unit_test_source', new Set([undefined])));
  if (!has('sink')) components.set('\0unit_test_sink', { id: '\0unit_test_sink', kind: 'sink', def: placeholderSink, options: {} as never, raw: {}, file: undefined });
  return { ...config, components };
}

/** Stands for the inputs of a transform written with `inputs = []`: in a test, the test feeds it. */
const TEST_INPUT = '\0unit_test_input';

/**
 * Vector's guide writes transforms under test with `inputs = []` (the test's inputs are their only
 * ones); elsewhere weir requires at least one input, so here they get a placeholder.
 */
function withTestInputs(file: RawConfigFile): RawConfigFile {
  const transforms = file.data.transforms;
  if (typeof transforms !== 'object' || transforms === null || Array.isArray(transforms)) return file;
  const patched: Record<string, unknown> = {};
  for (const [id, t] of Object.entries(transforms)) {
    const empty = typeof t === 'object' && t !== null && Array.isArray((t as { inputs?: unknown }).inputs) && (t as { inputs: unknown[] }).inputs.length === 0;
    patched[id] = empty ? { ...(t as object), inputs: [TEST_INPUT] } : t;
  }
  return { ...file, data: { ...file.data, transforms: patched } };
}

export function testCommand(opts: TestOptions, out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): number {
  const colour = (out as NodeJS.WriteStream).isTTY === true;
  const green = (s: string) => (colour ? `\x1b[32m${s}\x1b[0m` : s);
  const red = (s: string) => (colour ? `\x1b[31m${s}\x1b[0m` : s);
  const yellow = (s: string) => (colour ? `\x1b[33m${s}\x1b[0m` : s);

  const problems: ConfigProblem[] = [...(opts.problems ?? [])];
  if (opts.files.length === 0 && problems.length === 0) problems.push({ code: 'WEIR_ERR_CONFIG_FILE', message: 'no configuration given; pass config files to test' });
  const built = buildConfig(readConfigFiles(opts.files, process.env, problems).map(withTestInputs), catalog);
  problems.push(...built.problems);
  const config = built.config;
  const wired = config && problems.length === 0 ? buildGraph(withPlaceholders(config)) : undefined;
  if (wired) problems.push(...wired.problems);
  out.write('Running tests\n');
  if (!config || !wired?.graph || problems.length > 0) {
    err.write(`Failed to execute tests:\n${problems.map(formatProblem).join('\n')}.\n`);
    return EXIT_CONFIG;
  }
  const graph = wired.graph;
  const buildErrors = transformBuildErrors(config);
  if (buildErrors.length > 0) {
    err.write(`Failed to execute tests:\n${buildErrors.join('\n')}.\n`);
    return EXIT_CONFIG;
  }
  const { tests, errors } = prepareTests(config, graph);
  if (errors.length > 0) {
    err.write(`Failed to execute tests:\n${errors.join('\n')}.\n`);
    return EXIT_CONFIG;
  }
  if (tests.length === 0) {
    out.write(`${yellow('No tests found.')}\n`);
    return 0;
  }

  const log = opts.log ?? new LogRoot(levelFrom(process.env.WEIR_LOG, 0, 1));
  const results: CaseResult[] = [];
  const suiteStart = performance.now();
  for (const test of tests) {
    const start = performance.now();
    const failures = runTest(test, graph, config, log);
    results.push({ name: test.name, errors: failures, seconds: (performance.now() - start) / 1000 });
    out.write(`test ${test.name} ... ${failures.length > 0 ? red('failed') : green('passed')}\n`);
  }
  const suiteSeconds = (performance.now() - suiteStart) / 1000;
  if (opts.junitReports.length > 0) {
    const xml = junitReport(results, suiteSeconds);
    for (const path of opts.junitReports) {
      try {
        writeFileSync(path, xml);
      } catch (e) {
        err.write(`Failed to write test output:\n${(e as Error).message}.\n`);
        return EXIT_CONFIG;
      }
    }
  }

  const failed = results.filter((r) => r.errors.length > 0);
  if (failed.length === 0) return 0;
  out.write('\nfailures:\n');
  for (const r of failed) {
    out.write(`\ntest ${r.name}:\n\n`);
    for (const e of r.errors) out.write(`${e}\n\n`);
  }
  return EXIT_CONFIG;
}
