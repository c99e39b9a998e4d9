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
import { type RunEnd, finalAccount, formatAccount } from '../../lib/telemetry/account.js';
import { runHealthchecks } from '../../lib/topology/healthcheck.js';
import { type ComponentFailure, Topology } from '../../lib/topology/topology.js';
import { packageVersion } from './version.js';
import { sizeYoungGeneration } from '../startup/young-generation.js';
import { EXIT_CONFIG, EXIT_FAILURE, EXIT_LOSS, exitForSignal } from './exit.js';
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
  /** Exit with EXIT_LOSS when the final account counts lost events. */
  exitNonzeroOnLoss: boolean;
}

/** The two ways a reload fails: an invalid configuration, or a component that could not be built or started. */
const RELOAD_FAILED = ['Reload failed: invalid configuration; keeping the running one.', 'Reload failed; keeping the running configuration.'] as const;

/** How the log names a failed component: `source "in" (socket): listen EADDRINUSE …`. */
const describeFailure = (f: ComponentFailure) => `${f.kind} "${f.id}" (${f.type}) failed${f.atStart ? ' to start' : ''}: ${f.error}`;

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
      log.error('Health checks failed and --require-healthy is set; exiting.', { sinks: failed.map((f) => f.id).join(',') });
      return EXIT_FAILURE;
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
  // a signal during the start (sources may already emit) is kept, and handled once the run's
  // handlers are in place, instead of ending the process with the default action
  const early: ('SIGINT' | 'SIGTERM')[] = [];
  const keepInt = () => early.push('SIGINT');
  const keepTerm = () => early.push('SIGTERM');
  process.on('SIGINT', keepInt);
  process.on('SIGTERM', keepTerm);
  const dropEarly = () => {
    process.off('SIGINT', keepInt);
    process.off('SIGTERM', keepTerm);
  };
  try {
    await topology.start(config);
  } catch (err) {
    dropEarly();
    await api?.close();
    if (err instanceof ConfigError) {
      log.error('Configuration error.');
      reportProblems(logRoot, log, err.problems);
      return EXIT_CONFIG;
    }
    log.error('Failed to start.', { error: (err as Error).message });
    return EXIT_FAILURE;
  }
  api?.markRunning();
  sizeYoungGeneration(topology.threadedSegments);
  if (!requireHealthy) void topology.healthchecks();

  return new Promise<number>((resolve) => {
    let finishing = false;
    const watchers: FSWatcher[] = [];
    let reloadTimer: NodeJS.Timeout | undefined;
    /** Set by a second SIGINT/SIGTERM during the drain. */
    let forcedBy: 'SIGINT' | 'SIGTERM' | undefined;
    let forceDrainEnd!: () => void;
    const forced = new Promise<void>((r) => (forceDrainEnd = r));
    const finish = async (reason: string, failure?: ComponentFailure) => {
      if (finishing) return;
      finishing = true;
      failures.unsubscribe();
      for (const w of watchers) w.close();
      if (failure) log.error(`Shutting down (${reason}).`);
      else log.info(`Shutting down (${reason}).`);
      api?.beginShutdown();
      const limit = opts.gracefulShutdownLimitSecs;
      const drained = await topology.stop({ deadlineMs: limit === undefined ? undefined : limit * 1000, force: forced });
      await api?.close();
      const end: RunEnd = forcedBy ? 'forced' : drained ? 'finished' : 'drain_limit';
      if (end === 'drain_limit') log.error(`Graceful shutdown did not finish within ${limit} s; exiting anyway.`);
      const account = finalAccount(topology.registry, topology.components, end);
      let code = 0;
      if (forcedBy) code = exitForSignal(forcedBy);
      else if (failure || end === 'drain_limit') code = EXIT_FAILURE;
      else if (opts.exitNonzeroOnLoss && account.lost > 0) {
        code = EXIT_LOSS;
        log.error(`${account.lost} events lost and --exit-nonzero-on-loss is set; exiting with status ${EXIT_LOSS}.`);
      }
      // the account is the last record of every run: operators and scripts read it there
      log.info(formatAccount(account));
      resolve(code);
    };
    const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
      if (!finishing) return void finish(signal);
      // a third signal: even cutting the drain short hangs (a store that does not close); leave now
      if (forcedBy) process.exit(exitForSignal(signal));
      forcedBy = signal;
      log.warn(`${signal} received during the drain: shutting down now without waiting for it.`);
      forceDrainEnd();
    };
    // a component of the first start that never started ends the run: weir does not run with part
    // of its pipeline missing. One a reload added or rebuilt fails alone (its log says so): the
    // rest of the pipeline was running and delivering before that reload.
    const firstStart = new Set(topology.components.keys());
    let reloading = 0;
    const failures = topology.failures$.subscribe((f) => {
      if (f.atStart && reloading === 0 && firstStart.has(f.id)) void finish(describeFailure(f), f);
    });
    const reload = async () => {
      if (finishing) return;
      log.info('Reloading configuration.');
      try {
        const next = loadChecked(opts);
        if (!next.config) throw new ConfigError(next.problems);
        files = next.files.map((f) => f.path);
        const prevApi = topology.currentConfig?.globals.api;
        reloading++;
        const diff = await topology.reload(next.config).finally(() => reloading--);
        for (const id of [...diff.added, ...diff.changed]) firstStart.delete(id);
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
        // the first failure after a success is news: the rate limit must not fold it into older ones
        for (const msg of RELOAD_FAILED) logRoot.endRepeats('error', msg);
        log.info('Configuration reloaded.', { added: diff.added.join(',') || '-', changed: diff.changed.join(',') || '-', removed: diff.removed.join(',') || '-' });
      } catch (err) {
        if (err instanceof ConfigError) {
          log.error(RELOAD_FAILED[0]);
          reportProblems(logRoot, log, err.problems);
        } else log.error(RELOAD_FAILED[1], { error: (err as Error).message });
      }
    };
    process.on('SIGINT', () => onSignal('SIGINT'));
    process.on('SIGTERM', () => onSignal('SIGTERM'));
    process.on('SIGHUP', () => void reload());
    dropEarly();
    const failedAtStart = topology.failures.find((f) => f.atStart);
    if (failedAtStart) return void finish(describeFailure(failedAtStart), failedAtStart);
    for (const signal of early) onSignal(signal);
    // one turn of the event loop first, with the signal handlers in place: a listener that cannot
    // bind (EADDRINUSE) reports it in that turn, and the run ends without claiming it started
    setImmediate(() => {
      if (finishing) return;
      // the handlers are in place: a signal sent on seeing this line finds them (else SIGHUP would end the process)
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
      void topology.whenFinished().then(() => {
        const failed = topology.failures.filter((f) => f.kind === 'source');
        void finish(failed.length ? `all sources finished; ${failed.map(describeFailure).join('; ')}` : 'all sources finished');
      });
    });
  });
}
