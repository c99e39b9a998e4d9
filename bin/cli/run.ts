/** `weir run` (the default command): start the pipeline, reload on SIGHUP / file change, drain on SIGINT/SIGTERM. */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { catalog } from '../../connectors/index.js';
import { loadConfig, type Config } from '../../lib/config/load.js';
import { ConfigError, formatProblem } from '../../lib/errors.js';
import type { LogRoot } from '../../lib/log.js';
import { Topology } from '../../lib/topology/topology.js';
import { componentTotals, formatSummary } from './summary.js';

export interface RunOptions {
  files: string[];
  requireHealthy: boolean;
  watchConfig: boolean;
  /** undefined = no limit. */
  gracefulShutdownLimitSecs: number | undefined;
}

/** EX_CONFIG, as Vector. */
export const EXIT_CONFIG = 78;

export async function runCommand(opts: RunOptions, logRoot: LogRoot): Promise<number> {
  const log = logRoot.logger();
  let config: Config;
  try {
    config = loadConfig(opts.files, catalog);
  } catch (err) {
    if (err instanceof ConfigError) {
      log.error('Configuration error.');
      for (const p of err.problems) process.stderr.write(`  x ${formatProblem(p)}\n`);
      return EXIT_CONFIG;
    }
    throw err;
  }
  const topology = new Topology({ log: logRoot });
  try {
    await topology.start(config);
  } catch (err) {
    if (err instanceof ConfigError) {
      log.error('Configuration error.');
      for (const p of err.problems) process.stderr.write(`  x ${formatProblem(p)}\n`);
      return EXIT_CONFIG;
    }
    log.error('Failed to start.', { error: (err as Error).message });
    return 1;
  }
  log.info('weir started.', { components: topology.components.size, files: opts.files.join(',') });

  const requireHealthy = opts.requireHealthy || config.globals.healthchecks.require_healthy;
  if (requireHealthy) {
    const failed = await topology.healthchecks();
    if (failed.length) {
      log.error('Health checks failed and --require-healthy is set; exiting.', { sinks: failed.join(',') });
      await topology.stop(1000);
      return 1;
    }
  } else void topology.healthchecks();

  return new Promise<number>((resolve) => {
    let finishing = false;
    const watchers: FSWatcher[] = [];
    let reloadTimer: NodeJS.Timeout | undefined;
    const finish = async (reason: string) => {
      if (finishing) return;
      finishing = true;
      for (const w of watchers) w.close();
      log.info(`Shutting down (${reason}).`);
      const limit = opts.gracefulShutdownLimitSecs;
      const drained = await topology.stop(limit === undefined ? undefined : limit * 1000);
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
        const next = loadConfig(opts.files, catalog);
        const diff = await topology.reload(next);
        log.info('Configuration reloaded.', { added: diff.added.join(',') || '-', changed: diff.changed.join(',') || '-', removed: diff.removed.join(',') || '-' });
      } catch (err) {
        if (err instanceof ConfigError) {
          log.error('Reload failed: invalid configuration; keeping the running one.');
          for (const p of err.problems) process.stderr.write(`  x ${formatProblem(p)}\n`);
        } else log.error('Reload failed; keeping the running configuration.', { error: (err as Error).message });
      }
    };
    process.once('SIGINT', () => void finish('SIGINT'));
    process.once('SIGTERM', () => void finish('SIGTERM'));
    process.on('SIGHUP', () => void reload());
    if (opts.watchConfig) {
      // watch folders, not files: editors replace a file, which ends a watch on the file itself
      for (const dir of new Set(opts.files.map((f) => dirname(f)))) {
        const names = new Set(opts.files.filter((f) => dirname(f) === dir).map((f) => basename(f)));
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
