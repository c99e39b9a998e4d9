/** The command line: `weir [run]`, `validate`, `list`, `vrl`, `test`, `graph`, `generate-schema`, `tap`, `top`. Flags and environment variables follow Vector's. */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Command, InvalidArgumentError, Option } from 'commander';
import { catalog, components, pipelineWorkerEntry } from '../../connectors/index.js';
import { type ConfigLocations, DEFAULT_CONFIG_PATH, type ConfigSource, formatOf, namesAny, resolveConfigSources } from '../../lib/config/paths.js';
import { suggest } from '../../lib/config/suggest.js';
import type { ConfigProblem } from '../../lib/errors.js';
import { LogRoot, levelFrom } from '../../lib/log.js';
import { describeCommand } from './describe.js';
import { graphqlUrl } from './api/address.js';
import { runCommand } from './run.js';
import { validateCommand } from './validate.js';
import { packageVersion } from './version.js';

const pkg = { version: packageVersion() };

const collect = (v: string, prev: string[]) => [...prev, v];
const count = (_: string, prev: number) => prev + 1;

/** The config location flags every command that reads a config takes. */
interface ConfigFlags {
  config: string[];
  configDir: string[];
  configToml: string[];
  configYaml: string[];
  configJson: string[];
}

function configOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('-c, --config <path>', 'config file (TOML, YAML or JSON by extension); repeat, comma-separate or use a glob for several').argParser(collect).default([]))
    .addOption(new Option('-C, --config-dir <dir>', 'config folder: its .toml/.yaml/.yml/.json files, and one component per file in sources/, transforms/, sinks/').argParser(collect).default([]))
    .addOption(new Option('--config-toml <path>', 'config file read as TOML whatever its name').argParser(collect).default([]))
    .addOption(new Option('--config-yaml <path>', 'config file read as YAML whatever its name').argParser(collect).default([]))
    .addOption(new Option('--config-json <path>', 'config file read as JSON whatever its name').argParser(collect).default([]));
}

/** Each flag falls back to its own environment variable, as Vector's do. */
function locations(flags: ConfigFlags, extra: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): ConfigLocations {
  const pick = (given: readonly string[], name: string) => (given.length ? given : env[name] ? [env[name]] : []);
  return {
    config: [...pick(flags.config, 'WEIR_CONFIG'), ...extra],
    dirs: pick(flags.configDir, 'WEIR_CONFIG_DIR'),
    toml: pick(flags.configToml, 'WEIR_CONFIG_TOML'),
    yaml: pick(flags.configYaml, 'WEIR_CONFIG_YAML'),
    json: pick(flags.configJson, 'WEIR_CONFIG_JSON'),
  };
}

/**
 * The files to read. With no location at all, the default config: /etc/weir/weir.yaml (YAML), or
 * the file named by WEIR_DEFAULT_CONFIG (meant for tests and packaging).
 */
function locate(l: ConfigLocations, env: NodeJS.ProcessEnv = process.env): { files: ConfigSource[]; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  if (!namesAny(l)) {
    const path = env.WEIR_DEFAULT_CONFIG || DEFAULT_CONFIG_PATH;
    if (existsSync(path)) return { files: [{ path, format: formatOf(path) ?? 'yaml' }], problems };
    problems.push({ code: 'WEIR_ERR_CONFIG_FILE', message: `no configuration given; pass --config FILE (TOML, YAML or JSON) or install one at ${path}` });
    return { files: [], problems };
  }
  const files = resolveConfigSources(l, problems);
  return { files, problems };
}

/** Merges the root's config flags (`weir -c x.toml validate`) into a subcommand's. */
function withRootFlags(own: ConfigFlags, root: Partial<ConfigFlags>): ConfigFlags {
  return {
    config: [...(root.config ?? []), ...own.config],
    configDir: [...(root.configDir ?? []), ...own.configDir],
    configToml: [...(root.configToml ?? []), ...own.configToml],
    configYaml: [...(root.configYaml ?? []), ...own.configYaml],
    configJson: [...(root.configJson ?? []), ...own.configJson],
  };
}

const choice = (allowed: readonly string[]) => (v: string) => {
  if (!allowed.includes(v)) throw new InvalidArgumentError(`must be one of ${allowed.join(', ')}; got "${v}"`);
  return v;
};

function runOptions(cmd: Command): Command {
  return configOptions(cmd)
    .option('--require-healthy', 'exit when a sink health check fails at boot', process.env.WEIR_REQUIRE_HEALTHY === 'true')
    .option('-w, --watch-config', 'reload the configuration when its files change', process.env.WEIR_WATCH_CONFIG === 'true')
    .addOption(new Option('--graceful-shutdown-limit-secs <secs>', 'how long to drain on SIGINT/SIGTERM before exiting').default(60).argParser((v) => {
      const n = Number(v);
      if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('must be a non-negative number');
      return n;
    }))
    .option('--no-graceful-shutdown-limit', 'wait for the drain however long it takes')
    .option('--exit-nonzero-on-loss', 'exit with status 2 when the final account counts lost events (env WEIR_EXIT_NONZERO_ON_LOSS=true)', process.env.WEIR_EXIT_NONZERO_ON_LOSS === 'true')
    .addOption(
      new Option('-t, --threads <count>', 'threads for decoding, transforms and encoding of eligible pipelines (docs/threads.md); 1 = all on the main thread')
        .default(availableParallelism(), 'the number of cores')
        .env('WEIR_THREADS')
        .argParser((v) => {
          const n = Number(v);
          if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`must be a positive whole number; got "${v}"`);
          return n;
        }),
    )
    .addOption(new Option('--color <when>', 'colour the log levels: auto (when stderr is a terminal), always or never').default('auto').env('WEIR_COLOR').argParser(choice(['auto', 'always', 'never'])))
    .addOption(new Option('--log-format <format>', "format of weir's own log lines: text or json").default('text').env('WEIR_LOG_FORMAT').argParser(choice(['text', 'json'])))
    .addOption(new Option('-v, --verbose', 'more log output (repeat for more)').argParser(count).default(0))
    .addOption(new Option('-q, --quiet', 'less log output (repeat for less)').argParser(count).default(0));
}

interface RunFlags extends ConfigFlags {
  requireHealthy: boolean;
  watchConfig: boolean;
  gracefulShutdownLimitSecs: number;
  gracefulShutdownLimit: boolean;
  exitNonzeroOnLoss: boolean;
  threads: number;
  color: 'auto' | 'always' | 'never';
  logFormat: 'text' | 'json';
  verbose: number;
  quiet: number;
}

async function run(flags: RunFlags, extraPaths: readonly string[] = []): Promise<number> {
  const logRoot = new LogRoot(levelFrom(process.env.WEIR_LOG, flags.verbose, flags.quiet));
  logRoot.format = flags.logFormat;
  logRoot.isColoured = flags.color === 'always' || (flags.color === 'auto' && process.stderr.isTTY === true);
  const where = locations(flags, extraPaths);
  return runCommand(
    {
      locate: () => locate(where),
      requireHealthy: flags.requireHealthy,
      watchConfig: flags.watchConfig,
      gracefulShutdownLimitSecs: flags.gracefulShutdownLimit ? flags.gracefulShutdownLimitSecs : undefined,
      threads: flags.threads,
      workerEntry: pipelineWorkerEntry,
      exitNonzeroOnLoss: flags.exitNonzeroOnLoss,
    },
    logRoot,
  );
}

/**
 * Operands after the root command: config paths when a config flag was given (what a shell makes
 * of `-c *.yaml`) or when they name config files; otherwise a command weir does not have.
 */
function rootOperands(operands: readonly string[], flags: ConfigFlags, commands: readonly string[]): { paths: string[] } | { error: string } {
  if (operands.length === 0) return { paths: [] };
  const named = flags.config.length + flags.configDir.length + flags.configToml.length + flags.configYaml.length + flags.configJson.length > 0;
  if (named || operands.every((o) => formatOf(o) !== undefined)) return { paths: [...operands] };
  const unknown = operands.find((o) => formatOf(o) === undefined)!;
  const meant = suggest(unknown, commands);
  return { error: `unknown command "${unknown}"${meant ? `; did you mean "${meant}"?` : `; commands: ${commands.join(', ')}`}` };
}

/** Parses argv and runs the command; resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  let code = 0;
  const program = runOptions(new Command('weir'))
    .description('An observability data pipeline: sources, transforms and sinks.')
    .version(pkg.version, '-V, --version')
    .argument('[paths...]', 'more config files (as a shell expands `-c *.yaml`)')
    // root options (the implicit run) only before a subcommand, so `validate -c x` reaches validate
    .enablePositionalOptions()
    .action(async (operands: string[], flags: RunFlags) => {
      const commands = program.commands.map((c) => c.name());
      const r = rootOperands(operands, flags, commands);
      if ('error' in r) {
        process.stderr.write(`weir: ${r.error}\n`);
        code = 1;
        return;
      }
      code = await run(flags, r.paths);
    });

  runOptions(program.command('run').description('run the pipeline (the default command)'))
    .argument('[paths...]', 'more config files')
    .action(async (paths: string[], flags: RunFlags) => {
      code = await run({ ...flags, ...withRootFlags(flags, program.opts<ConfigFlags>()) }, paths);
    });

  configOptions(program.command('validate').description('check configuration files; exit 0 when valid, 78 when not'))
    .argument('[paths...]', 'config files to check (as with --config)')
    .option('--no-environment', 'skip the component build checks and health checks that need the environment')
    .option('--skip-healthchecks', 'skip sink health checks')
    .option('-d, --deny-warnings', 'fail on warnings (such as outputs without consumers)')
    .addOption(new Option('-v, --verbose', 'also log what the checks do on stderr (repeat for more)').argParser(count).default(0))
    .action(async (paths: string[], flags: ConfigFlags & { environment: boolean; skipHealthchecks?: boolean; denyWarnings?: boolean; verbose: number }) => {
      const { files, problems } = locate(locations(withRootFlags(flags, program.opts<ConfigFlags>()), paths));
      // quiet by default, as the check marks say it all; -v logs the checks at info, -vv at debug
      const log = flags.verbose > 0 ? new LogRoot(levelFrom(process.env.WEIR_LOG, flags.verbose - 1, 0)) : undefined;
      code = await validateCommand({ files, problems, environment: flags.environment, skipHealthchecks: !!flags.skipHealthchecks, denyWarnings: !!flags.denyWarnings, log });
    });

  program
    .command('list')
    .description('list every component type with its kind, and the Vector type names it also answers to; with a type, its options and an example')
    .argument('[type]', 'a component type (or a Vector type name): print its reference, as on its page in docs/components/')
    .option('--format <format>', 'text or json', 'text')
    .action((type: string | undefined, flags: { format: string }) => {
      if (type !== undefined) {
        code = describeCommand(type, flags.format);
        return;
      }
      const rows = [...components].sort((a, b) => a.kind.localeCompare(b.kind) || a.type.localeCompare(b.type));
      if (flags.format === 'json') {
        const aliases: Record<string, string> = {};
        for (const c of rows) for (const a of c.aliases ?? []) aliases[a] = c.type;
        process.stdout.write(JSON.stringify({ sources: catalog.types('source'), transforms: catalog.types('transform'), sinks: catalog.types('sink'), aliases }) + '\n');
        return;
      }
      for (const kind of ['source', 'transform', 'sink'] as const) {
        process.stdout.write(`${kind[0]!.toUpperCase() + kind.slice(1)}s:\n`);
        for (const c of rows.filter((r) => r.kind === kind)) {
          const also = c.aliases?.length ? ` (Vector: ${c.aliases.join(', ')})` : '';
          process.stdout.write(`- ${c.type.padEnd(24)} ${c.summary}${also}\n`);
        }
        process.stdout.write('\n');
      }
    });

  program
    .command('vrl')
    .description('run a remap (VRL) program over newline-delimited JSON events; without a program, a REPL (type help)')
    .argument('[program]', 'the program text')
    .option('-p, --program <file>', 'read the program from a file')
    .option('-i, --input <file>', 'newline-delimited JSON events (default: standard input)')
    .option('-o, --print-object', 'print each event as the program left it, instead of the result and the event')
    .option('--timezone <tz>', 'time zone for timestamps without one (IANA name or "local")')
    .option('--functions', 'list the built-in functions and exit')
    .action(async (text: string | undefined, flags: { program?: string; input?: string; printObject?: boolean; timezone?: string; functions?: boolean }) => {
      const { runVrlCommand } = await import('./vrl.js');
      code = await runVrlCommand(
        { program: text, programFile: flags.program, input: flags.input, printObject: flags.printObject, timezone: flags.timezone, functions: flags.functions },
        { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
      );
    });

  configOptions(program.command('test').description("run the configuration's unit tests ([[tests]]) in virtual time; exit 0 when all pass, 78 when not"))
    .argument('[paths...]', 'config files to test (as with --config)')
    .addOption(new Option('--junit-report <path>', 'also write the results as JUnit XML; repeat or comma-separate for several files').argParser(collect).default([]))
    .action(async (paths: string[], flags: ConfigFlags & { junitReport: string[] }) => {
      const { testCommand } = await import('./test.js');
      const { files, problems } = locate(locations(withRootFlags(flags, program.opts<ConfigFlags>()), paths));
      code = testCommand({ files, problems, junitReports: flags.junitReport.flatMap((p) => p.split(',')).filter((p) => p !== '') });
    });

  configOptions(program.command('graph').description('print the topology as Graphviz DOT (or a Mermaid flowchart)'))
    .argument('[paths...]', 'config files (as with --config)')
    .addOption(new Option('--format <format>', 'dot or mermaid').default('dot').argParser(choice(['dot', 'mermaid'])))
    .action(async (paths: string[], flags: ConfigFlags & { format: 'dot' | 'mermaid' }) => {
      const { graphCommand } = await import('./graph.js');
      const { files, problems } = locate(locations(withRootFlags(flags, program.opts<ConfigFlags>()), paths));
      code = graphCommand({ files, problems, format: flags.format });
    });

  program
    .command('generate-schema')
    .description('print a JSON Schema of the whole configuration, generated from the component schemas')
    .option('-o, --output-path <path>', 'write the schema to this file instead of standard output')
    .action(async (flags: { outputPath?: string }) => {
      const { generateSchemaCommand } = await import('./generate-schema.js');
      code = generateSchemaCommand({ outputPath: flags.outputPath });
    });

  const positive = (name: string, min: number, max: number) => (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}; got "${v}"`);
    return n;
  };
  const apiAddress = (v: string) => {
    try {
      return graphqlUrl(v);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
  };
  const apiUrl = () =>
    new Option('-u, --url <url>', "the management API's address: host:port, http://host:port or http://host:port/graphql")
      .default('http://127.0.0.1:8686/graphql')
      .env('WEIR_API_URL')
      .argParser(apiAddress);

  program
    .command('tap')
    .description("print sampled events flowing out of components of a running weir (through its management API)")
    .argument('[patterns...]', 'component id globs whose outputs to tap (default "*" when no --outputs-of/--inputs-of)')
    .addOption(apiUrl())
    .addOption(new Option('--outputs-of <glob>', 'tap the outputs of matching sources and transforms; repeat or comma-separate').argParser(collect).default([]))
    .addOption(new Option('--inputs-of <glob>', 'tap the events flowing into matching transforms and sinks; repeat or comma-separate').argParser(collect).default([]))
    .addOption(new Option('-l, --limit <n>', 'at most this many events per interval (sampled)').default(100).argParser(positive('--limit', 1, 10000)))
    .addOption(new Option('-i, --interval <ms>', 'how often sampled events are sent').default(500).argParser(positive('--interval', 10, 60000)))
    .addOption(new Option('-f, --format <format>', 'json, yaml or logfmt').default('json').argParser(choice(['json', 'yaml', 'logfmt'])))
    .option('-m, --meta', 'print each event with its component id, kind and type')
    .option('-q, --quiet', 'leave out the pattern notifications')
    .addOption(new Option('-d, --duration-ms <ms>', 'stop after this long').argParser(positive('--duration-ms', 1, Number.MAX_SAFE_INTEGER)))
    .option('--no-reconnect', 'exit when the connection ends instead of reconnecting')
    .action(async (patterns: string[], flags: Record<string, unknown>) => {
      const { tapCommand } = await import('./tap.js');
      const split = (xs: string[]) => xs.flatMap((x) => x.split(',')).filter((x) => x !== '');
      code = await tapCommand(split(patterns), {
        url: flags.url as string,
        outputsOf: split(flags.outputsOf as string[]),
        inputsOf: split(flags.inputsOf as string[]),
        limit: flags.limit as number,
        interval: flags.interval as number,
        format: flags.format as 'json' | 'yaml' | 'logfmt',
        meta: flags.meta === true,
        quiet: flags.quiet === true,
        durationMs: flags.durationMs as number | undefined,
        reconnect: flags.reconnect !== false,
      });
    });

  program
    .command('top')
    .description("a live dashboard of a running weir's components (through its management API)")
    .addOption(apiUrl())
    .addOption(new Option('-i, --interval <ms>', 'how often the metrics refresh').default(1000).argParser(positive('--interval', 10, 60000)))
    .addOption(new Option('--components <glob>', 'show only components whose id matches; repeat or comma-separate').argParser(collect).default([]))
    .option('-H, --human-metrics', 'short numbers (1.23k, 4.5 MiB) instead of exact ones')
    .option('--no-reconnect', 'exit when the connection ends instead of reconnecting')
    .action(async (flags: { url: string; interval: number; components: string[]; humanMetrics?: boolean; reconnect: boolean }) => {
      const { topCommand } = await import('./top/command.js');
      const globs = flags.components.flatMap((x) => x.split(',')).filter((x) => x !== '');
      code = await topCommand({ url: flags.url, interval: flags.interval, components: globs.length ? globs : ['*'], humanMetrics: flags.humanMetrics === true, reconnect: flags.reconnect }, pkg.version);
    });

  await program.parseAsync(argv);
  return code;
}
