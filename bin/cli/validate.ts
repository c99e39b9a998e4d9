/** `weir validate`: load, check the graph, build every component, run health checks; report every problem. */
import { catalog } from '../../connectors/index.js';
import { type BuiltConfig, buildConfig, readConfigFiles } from '../../lib/config/load.js';
import type { ConfigSource } from '../../lib/config/paths.js';
import { type ConfigProblem, formatProblem } from '../../lib/errors.js';
import { LogRoot } from '../../lib/log.js';
import { checkConfig, graphStub } from '../../lib/topology/check.js';
import type { ComponentKind } from '../../lib/component.js';
import type { Graph } from '../../lib/topology/graph.js';
import { runHealthchecks } from '../../lib/topology/healthcheck.js';
import { MetricsRegistry } from '../../lib/telemetry/registry.js';
import { EXIT_CONFIG } from './exit.js';

export interface ValidateOptions {
  files: readonly (string | ConfigSource)[];
  /** Skip the component build and health checks (Vector's --no-environment). */
  environment: boolean;
  skipHealthchecks: boolean;
  denyWarnings: boolean;
  /** Problems found while resolving the config locations (a pattern matching nothing). */
  problems?: readonly ConfigProblem[];
  /** Where the health checks log (`-v`); default: nowhere. */
  log?: LogRoot | undefined;
}

/** Every problem of a configuration in one pass: loading, then the graph and build checks of what loaded. */
export interface ConfigReport {
  readonly built: BuiltConfig;
  /** Problems of reading, parsing and validating options. */
  readonly loadProblems: readonly ConfigProblem[];
  /** Problems of the graph and of building components (also for a config that did not load cleanly). */
  readonly checkProblems: readonly ConfigProblem[];
  /** Set when there is no problem at all. */
  readonly graph?: Graph;
}

/**
 * Loads and checks a configuration, collecting every problem in one run: components whose
 * options failed are left out of the graph and build checks, and inputs naming them are not
 * reported again.
 */
export function checkConfigFiles(files: readonly (string | ConfigSource)[], env: NodeJS.ProcessEnv, pathProblems: readonly ConfigProblem[] = []): ConfigReport {
  const loadProblems: ConfigProblem[] = [...pathProblems];
  if (files.length === 0 && pathProblems.length === 0) loadProblems.push({ code: 'WEIR_ERR_CONFIG_FILE', message: 'no configuration given; pass --config FILE' });
  const raw = readConfigFiles(files, env, loadProblems);
  const built = buildConfig(raw, catalog);
  loadProblems.push(...built.problems);
  const config = built.config ?? built.partial?.config;
  if (!config) return { built, loadProblems, checkProblems: [] };
  const stubs = built.partial?.stubs ?? new Map();
  const checked = checkConfig(config, stubs);
  // a failed component whose outputs are known took part in the graph check: inputs naming it stand
  const failed = new Map([...(built.partial?.failed ?? new Map<string, ComponentKind>())].filter(([id]) => !(stubs.has(id) && graphStub(stubs.get(id)!))));
  // a file that could not be read or parsed leaves the graph incomplete: only build problems stand
  const isGraphUnknown = loadProblems.some((p) => p.code === 'WEIR_ERR_CONFIG_SYNTAX' || p.code === 'WEIR_ERR_CONFIG_FILE');
  const checkProblems = checked.problems.filter((p) => !(isGraphUnknown && GRAPH_CODES.has(p.code)) && !hiddenByFailed(p, config, failed));
  if (loadProblems.length > 0 || !built.config) return { built, loadProblems, checkProblems };
  return { built, loadProblems, checkProblems, graph: checked.graph };
}

const GRAPH_CODES = new Set<ConfigProblem['code']>(['WEIR_ERR_CONFIG_INPUTS', 'WEIR_ERR_CONFIG_GRAPH', 'WEIR_ERR_CONFIG_CYCLE']);

/** A graph problem that only says a component which failed validation is missing. */
function hiddenByFailed(p: ConfigProblem, config: NonNullable<BuiltConfig['config']>, failed: ReadonlyMap<string, string>): boolean {
  if (failed.size === 0) return false;
  if (p.code === 'WEIR_ERR_CONFIG_GRAPH' && /^no sources defined/.test(p.message)) return [...failed.values()].includes('source');
  if (p.code === 'WEIR_ERR_CONFIG_GRAPH' && /^no sinks defined/.test(p.message)) return [...failed.values()].includes('sink');
  if (p.code !== 'WEIR_ERR_CONFIG_INPUTS' || !p.component || !p.path) return false;
  const id = p.component.slice(p.component.indexOf('.') + 1);
  const index = /^inputs\[(\d+)\]$/.exec(p.path)?.[1];
  const inputs = (config.components.get(id)?.options as { inputs?: string[] } | undefined)?.inputs;
  const input = index === undefined ? undefined : inputs?.[Number(index)];
  if (input === undefined) return false;
  // a wildcard might have matched a failed component's output
  if (/[*?[]/.test(input)) return true;
  return failed.has(input.split('.')[0]!);
}

export async function validateCommand(opts: ValidateOptions, out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const ok = (s: string) => out.write(`√ ${s}\n`);
  const fail = (s: string, problems: readonly ConfigProblem[]) => {
    out.write(`x ${s}\n`);
    for (const p of problems) out.write(`  - ${formatProblem(p)}\n`);
  };
  const names = opts.files.map((f) => (typeof f === 'string' ? f : f.path)).join(', ');
  const report = checkConfigFiles(opts.files, process.env, opts.problems);
  if (report.loadProblems.length > 0) fail(`Failed to load [${names}]`, report.loadProblems);
  else ok(`Loaded [${names}]`);
  if (report.checkProblems.length > 0) fail('Component configuration', report.checkProblems);
  const config = report.built.config;
  if (!config || !report.graph) return EXIT_CONFIG;
  const graph = report.graph;
  for (const w of graph.warnings) out.write(`~ ${w}\n`);
  if (opts.denyWarnings && graph.warnings.length) {
    out.write('x Warnings are denied (--deny-warnings)\n');
    return EXIT_CONFIG;
  }
  ok('Component configuration');
  if (config.tests.length > 0)
    out.write(`~ ${config.tests.length} unit test(s) in the config were not run; run them with weir test\n`);
  if (opts.environment && !opts.skipHealthchecks && config.globals.healthchecks.enabled) {
    const failed = await runHealthchecks(config, new MetricsRegistry(), opts.log ?? new LogRoot('error', { write() {} }));
    for (const c of config.components.values()) {
      if (c.kind !== 'sink') continue;
      const f = failed.find((x) => x.id === c.id);
      if (f) out.write(`x Health check "${c.id}": ${f.error}\n`);
      else ok(`Health check "${c.id}"`);
    }
    if (failed.length) return EXIT_CONFIG;
  }
  out.write('\nValidated\n');
  return 0;
}
