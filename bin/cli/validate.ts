/** `weir validate`: load, check the graph, build every component, run health checks; report every problem. */
import { catalog } from '../../connectors/index.js';
import { buildConfig, readConfigFiles } from '../../lib/config/load.js';
import { type ConfigProblem, formatProblem } from '../../lib/errors.js';
import { LogRoot } from '../../lib/log.js';
import { checkConfig } from '../../lib/topology/check.js';
import { runHealthchecks } from '../../lib/topology/healthcheck.js';
import { MetricsRegistry } from '../../lib/telemetry/registry.js';
import { EXIT_CONFIG } from './run.js';

export interface ValidateOptions {
  files: string[];
  /** Skip the component build and health checks (Vector's --no-environment). */
  environment: boolean;
  skipHealthchecks: boolean;
  denyWarnings: boolean;
}

export async function validateCommand(opts: ValidateOptions, out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const ok = (s: string) => out.write(`√ ${s}\n`);
  const fail = (s: string, problems: readonly ConfigProblem[]) => {
    out.write(`x ${s}\n`);
    for (const p of problems) out.write(`  - ${formatProblem(p)}\n`);
  };
  const problems: ConfigProblem[] = [];
  if (opts.files.length === 0) problems.push({ code: 'WEIR_ERR_CONFIG_FILE', message: 'no configuration given; pass --config FILE' });
  const raw = readConfigFiles(opts.files, process.env, problems);
  const built = buildConfig(raw, catalog);
  problems.push(...built.problems);
  if (problems.length || !built.config) {
    fail(`Failed to load [${opts.files.join(', ')}]`, problems);
    return EXIT_CONFIG;
  }
  ok(`Loaded [${opts.files.join(', ')}]`);
  const checked = checkConfig(built.config);
  if (!checked.graph) {
    fail('Component configuration', checked.problems);
    return EXIT_CONFIG;
  }
  for (const w of checked.graph.warnings) out.write(`~ ${w}\n`);
  if (opts.denyWarnings && checked.graph.warnings.length) {
    out.write('x Warnings are denied (--deny-warnings)\n');
    return EXIT_CONFIG;
  }
  ok('Component configuration');
  if (opts.environment && !opts.skipHealthchecks && built.config.globals.healthchecks.enabled) {
    const failed = await runHealthchecks(built.config, new MetricsRegistry(), new LogRoot('error', { write() {} }));
    for (const c of built.config.components.values()) {
      if (c.kind !== 'sink') continue;
      if (failed.includes(c.id)) out.write(`x Health check "${c.id}"\n`);
      else ok(`Health check "${c.id}"`);
    }
    if (failed.length) return EXIT_CONFIG;
  }
  out.write('\nValidated\n');
  return 0;
}
