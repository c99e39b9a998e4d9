/** The command line: `weir [run]`, `validate`, `list`, `vrl`. Flags follow Vector's. */
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { catalog, components } from '../../connectors/index.js';
import { expandConfigPaths } from '../../lib/config/load.js';
import { LogRoot, levelFrom } from '../../lib/log.js';
import { runCommand } from './run.js';
import { validateCommand } from './validate.js';

/** package.json sits two folders up from the sources and three from dist/. */
function readPackage(): { version: string } {
  for (const rel of ['../../package.json', '../../../package.json']) {
    try {
      return JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { version: string };
    } catch {
      // try the next location
    }
  }
  return { version: 'unknown' };
}
const pkg = readPackage();

const collect = (v: string, prev: string[]) => [...prev, v];
const count = (_: string, prev: number) => prev + 1;

function configOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('-c, --config <path>', 'config file (TOML, YAML or JSON); repeat or comma-separate for several').argParser(collect).default([]))
    .addOption(new Option('-C, --config-dir <dir>', 'read every .toml/.yaml/.yml/.json file of a folder').argParser(collect).default([]));
}

function files(opts: { config: string[]; configDir: string[] }): string[] {
  const paths = opts.config.length || opts.configDir.length ? opts.config : (process.env.WEIR_CONFIG ?? '').split(',').filter(Boolean);
  return expandConfigPaths(paths, opts.configDir);
}

function runOptions(cmd: Command): Command {
  return configOptions(cmd)
    .option('--require-healthy', 'exit when a sink health check fails at boot', process.env.WEIR_REQUIRE_HEALTHY === 'true')
    .option('-w, --watch-config', 'reload the configuration when its files change', process.env.WEIR_WATCH_CONFIG === 'true')
    .addOption(new Option('--graceful-shutdown-limit-secs <secs>', 'how long to drain on SIGINT/SIGTERM before exiting').default(60).argParser((v) => {
      const n = Number(v);
      if (!Number.isFinite(n) || n < 0) throw new Error('--graceful-shutdown-limit-secs must be a non-negative number');
      return n;
    }))
    .option('--no-graceful-shutdown-limit', 'wait for the drain however long it takes')
    .addOption(new Option('-v, --verbose', 'more log output (repeat for more)').argParser(count).default(0))
    .addOption(new Option('-q, --quiet', 'less log output (repeat for less)').argParser(count).default(0));
}

interface RunFlags {
  config: string[];
  configDir: string[];
  requireHealthy: boolean;
  watchConfig: boolean;
  gracefulShutdownLimitSecs: number;
  gracefulShutdownLimit: boolean;
  verbose: number;
  quiet: number;
}

async function run(flags: RunFlags): Promise<number> {
  const logRoot = new LogRoot(levelFrom(process.env.WEIR_LOG, flags.verbose, flags.quiet));
  return runCommand(
    {
      files: files(flags),
      requireHealthy: flags.requireHealthy,
      watchConfig: flags.watchConfig,
      gracefulShutdownLimitSecs: flags.gracefulShutdownLimit ? flags.gracefulShutdownLimitSecs : undefined,
    },
    logRoot,
  );
}

/** Parses argv and runs the command; resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  let code = 0;
  const program = runOptions(new Command('weir'))
    .description('An observability data pipeline: sources, transforms and sinks.')
    .version(pkg.version, '-V, --version')
    // root options (the implicit run) only before a subcommand, so `validate -c x` reaches validate
    .enablePositionalOptions()
    .action(async (flags: RunFlags) => {
      code = await run(flags);
    });

  runOptions(program.command('run').description('run the pipeline (the default command)')).action(async (flags: RunFlags) => {
    code = await run(flags);
  });

  configOptions(program.command('validate').description('check configuration files; exit 0 when valid, 78 when not'))
    .option('--no-environment', 'skip the component build checks and health checks that need the environment')
    .option('--skip-healthchecks', 'skip sink health checks')
    .option('--deny-warnings', 'fail on warnings (such as outputs without consumers)')
    .action(async (flags: { config: string[]; configDir: string[]; environment: boolean; skipHealthchecks?: boolean; denyWarnings?: boolean }) => {
      code = await validateCommand({ files: files(flags), environment: flags.environment, skipHealthchecks: !!flags.skipHealthchecks, denyWarnings: !!flags.denyWarnings });
    });

  program
    .command('list')
    .description('list every component type with its kind')
    .option('--format <format>', 'text or json', 'text')
    .action((flags: { format: string }) => {
      const rows = [...components].sort((a, b) => a.kind.localeCompare(b.kind) || a.type.localeCompare(b.type));
      if (flags.format === 'json') {
        process.stdout.write(JSON.stringify({ sources: catalog.types('source'), transforms: catalog.types('transform'), sinks: catalog.types('sink') }) + '\n');
        return;
      }
      for (const kind of ['source', 'transform', 'sink'] as const) {
        process.stdout.write(`${kind[0]!.toUpperCase() + kind.slice(1)}s:\n`);
        for (const c of rows.filter((r) => r.kind === kind)) process.stdout.write(`- ${c.type.padEnd(24)} ${c.summary}\n`);
        process.stdout.write('\n');
      }
    });

  program
    .command('vrl')
    .description('run a remap (VRL) program over newline-delimited JSON events')
    .argument('[program]', 'the program text')
    .option('-p, --program <file>', 'read the program from a file')
    .option('-i, --input <file>', 'newline-delimited JSON events (default: standard input)')
    .option('--timezone <tz>', 'time zone for timestamps without one (IANA name or "local")')
    .option('--functions', 'list the built-in functions and exit')
    .action(async (text: string | undefined, flags: { program?: string; input?: string; timezone?: string; functions?: boolean }) => {
      const { runVrlCommand } = await import('../../remap/cli.js');
      code = await runVrlCommand(
        { program: text, programFile: flags.program, input: flags.input, timezone: flags.timezone, functions: flags.functions },
        { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
      );
    });

  await program.parseAsync(argv);
  return code;
}
