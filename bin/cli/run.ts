/** `weir run` (the default command): start the pipeline, reload on SIGHUP / file change, drain on SIGINT/SIGTERM. */
import { watch, type FSWatcher } from 'node:fs';
import { hostname } from 'node:os';
import { asyncScheduler } from 'rxjs';
import type { ApiServer, ApiOptions } from '../../lib/api/server.js';
import { basename, dirname } from 'node:path';
import type { Config } from '../../lib/config/load.js';
import type { ConfigSource } from '../../lib/config/paths.js';
import { ConfigError, type ConfigProblem, formatProblem } from '../../lib/errors.js';
import type { LogRoot, Logger } from '../../lib/log.js';
import { runHealthchecks } from '../../lib/topology/healthcheck.js';
import { Topology } from '../../lib/topology/topology.js';
import { packageVersion } from './version.js';
import { sizeYoungGeneration } from '../startup/young-generation.js';
import { EXIT_CONFIG } from './exit.js';
import { componentTotals, formatSummary } from './summary.js';
import { checkConfigFiles } from './validate.js';

export { EXIT_CONFIG } from './exit.js';

export interface RunOptions {
  /** The files to read; called again on every reload, so a config folder is listed afresh. */
  locate(): { files: readonly ConfigSource[]; problems: readonly ConfigProblem[] };
  requireHealthy: boolean;
  watchConfig: boolean;
  /** undefined = no limit. */
  gracefulShutdownLimitSecs: number | undefined;
  /** Pipeline threads (docs/threads.md) and the worker module they run. */
  threads: number;
  workerEntry: URL;
}

/** Config problems: indented lines under the log line, or one log record each with `--log-format json`. */
function reportProblems(logRoot: LogRoot, log: Logger, problems: readonly ConfigProblem[]): void {
  for (const p of problems) {
    if (logRoot.format === 'json') log.error(formatProblem(p), { error_code: p.code });
    else process.stderr.write(`  x ${formatProblem(p)}\n`);
  }
}

/** Loads and checks the configuration; every problem of it in one report (as `weir validate`). */
function loadChecked(opts: RunOptions): { config?: Config; problems: readonly ConfigProblem[]; files: readonly ConfigSource[] } {
  const { files, problems } = opts.locate();
  const report = checkConfigFiles(files, process.env, problems);
  const all = [...report.loadProblems, ...report.checkProblems];
  return all.length > 0 || !report.built.config ? { problems: all, files } : { config: report.built.config, problems: [], files };
}

/** Starts the management API when `api.enabled`; undefined when it is off. */
async function startApi(api: ApiOptions & { enabled: boolean }, topology: Topology, startedAt: number, log: Logger): Promise<ApiServer | undefined> {
  if (!api.enabled) return undefined;
  // loaded only when enabled: the API's modules (fastify, mercurius, graphql) are many files to open at start
  const { ApiServer } = await import('../../lib/api/server.js');
  const server = await ApiServer.start(api, { topology, scheduler: asyncScheduler, startedAt, version: packageVersion(), hostname: hostname() });
  log.info('Management API listening.', { address: api.address, playground: api.playground && api.graphql });
  return server;
}

export async function runCommand(opts: RunOptions, logRoot: LogRoot): Promise<number> {
  const log = logRoot.logger();
  const loaded = loadChecked(opts);
  if (!loaded.config) {
    log.error('Configuration error.');
    reportProblems(logRoot, log, loaded.problems);
    return EXIT_CONFIG;
  }
  const config = loaded.config;
  let files = loaded.files.map((f) => f.path);
  const topology = new Topology({ log: logRoot, threads: opts.threads, workerEntry: opts.workerEntry });
  // as in Vector, with require_healthy a failing check ends the process before any source reads
  const requireHealthy = opts.requireHealthy || config.globals.healthchecks.require_healthy;
  if (requireHealthy) {
    const failed = await runHealthchecks(config, topology.registry, logRoot);
    if (failed.length) {
      log.error('Health checks failed and --require-healthy is set; exiting.', { sinks: failed.join(',') });
      return 1;
    }
  }
  const startedAt = Date.now();
  let api: ApiServer | undefined;
  try {
    // bound before any source reads: a taken address ends the process with nothing consumed
    api = await startApi(config.globals.api, topology, startedAt, log);
  } catch (err) {
    log.error('Management API failed to start.', { error: (err as Error).message });
    return EXIT_CONFIG;
  }
  try {
    await topology.start(config);
  } catch (err) {
    await api?.close();
    if (err instanceof ConfigError) {
      log.error('Configuration error.');
      reportProblems(logRoot, log, err.problems);
      return EXIT_CONFIG;
    }
    log.error('Failed to start.', { error: (err as Error).message });
    return 1;
  }
  api?.markRunning();
  sizeYoungGeneration(topology.threadedSegments);
  if (!requireHealthy) void topology.healthchecks();

  return new Promise<number>((resolve) => {
    let finishing = false;
    const watchers: FSWatcher[] = [];
    let reloadTimer: NodeJS.Timeout | undefined;
    const finish = async (reason: string) => {
      if (finishing) return;
      finishing = true;
      for (const w of watchers) w.close();
      log.info(`Shutting down (${reason}).`);
      api?.beginShutdown();
      const limit = opts.gracefulShutdownLimitSecs;
      const drained = await topology.stop(limit === undefined ? undefined : limit * 1000);
      await api?.close();
      if (!drained) log.error(`Graceful shutdown did not finish within ${limit} s; exiting anyway.`);
      const totals = componentTotals(topology.registry, topology.components);
      log.info(formatSummary(totals));
      // accepted events that were neither sent nor deliberately discarded: the exit code says so
      const lost = totals.reduce((n, r) => n + r.lost, 0);
      if (lost > 0) log.error(`${lost} accepted events were lost; exiting with status 1.`);
      resolve(drained && lost === 0 ? 0 : 1);
    };
    const reload = async () => {
      if (finishing) return;
      log.info('Reloading configuration.');
      try {
        const next = loadChecked(opts);
        if (!next.config) throw new ConfigError(next.problems);
        files = next.files.map((f) => f.path);
        const prevApi = topology.currentConfig?.globals.api;
        const diff = await topology.reload(next.config);
        sizeYoungGeneration(topology.threadedSegments);
        const nextApi = next.config.globals.api;
        if (JSON.stringify(prevApi) !== JSON.stringify(nextApi)) {
          await api?.close();
          api = undefined;
          try {
            api = await startApi(nextApi, topology, startedAt, log);
            api?.markRunning();
          } catch (err) {
            log.error('Management API failed to restart with the new options.', { error: (err as Error).message });
          }
        }
        log.info('Configuration reloaded.', { added: diff.added.join(',') || '-', changed: diff.changed.join(',') || '-', removed: diff.removed.join(',') || '-' });
      } catch (err) {
        if (err instanceof ConfigError) {
          log.error('Reload failed: invalid configuration; keeping the running one.');
          reportProblems(logRoot, log, err.problems);
        } else log.error('Reload failed; keeping the running configuration.', { error: (err as Error).message });
      }
    };
    process.once('SIGINT', () => void finish('SIGINT'));
    process.once('SIGTERM', () => void finish('SIGTERM'));
    process.on('SIGHUP', () => void reload());
    // only now: a signal sent on seeing this line finds its handler (before it, SIGHUP would end the process)
    log.info('weir started.', { components: topology.components.size, files: files.join(',') });
    if (opts.watchConfig) {
      // watch folders, not files: editors replace a file, which ends a watch on the file itself
      for (const dir of new Set(files.map((f) => dirname(f)))) {
        const names = new Set(files.filter((f) => dirname(f) === dir).map((f) => basename(f)));
        watchers.push(
          watch(dir, (_event, name) => {
            if (name && !names.has(name.toString())) return;
            // editors write files in several steps: wait for them to settle (Vector: 1 s)
            clearTimeout(reloadTimer);
            reloadTimer = setTimeout(() => void reload(), 1000);
          }),
        );
      }
    }
    void topology.whenFinished().then(() => finish('all sources finished'));
  });
}
