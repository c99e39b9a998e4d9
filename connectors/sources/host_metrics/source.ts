/**
 * The `host_metrics` source on the source skeleton: one scrape at start, then every
 * `scrape_interval_secs` while the output gate is open. Each collector reads its files on its own;
 * a read that fails is counted and logged and leaves out that collector's metrics, never the scrape.
 */
import { hostname } from 'node:os';
import { type Observable, defer } from 'rxjs';
import type { SourceContext } from '../../../lib/component.js';
import { type EventBatch, batchSize, rememberBatchSize } from '../../../lib/event.js';
import { Timestamp } from '../../../lib/value.js';
import { pullEvery, runSource } from '../../shared/source/index.js';
import { MetricsBuffer } from './buffer.js';
import { collectCgroups, detectCgroups } from './cgroups.js';
import type { HostMetricsConfig } from './config.js';
import { collectCpu } from './cpu.js';
import { collectDisk } from './disk.js';
import { hostMetricsEvents } from './events.js';
import { collectFilesystem } from './filesystem.js';
import { compileFilter } from './glob.js';
import { collectHost, collectLoad } from './load-host.js';
import { collectMemory } from './memory.js';
import { collectNetwork } from './network.js';
import { ProcessCpuState, collectProcesses } from './process.js';
import type { Roots, Scrape } from './scrape.js';
import { collectTcp } from './tcp.js';

/** The kernel's file roots: Vector's `PROCFS_ROOT` and `SYSFS_ROOT` when set (a container reading its host's). */
export function rootsFromEnv(env: NodeJS.ProcessEnv = process.env): Roots {
  return { proc: env.PROCFS_ROOT || '/proc', sys: env.SYSFS_ROOT || '/sys' };
}

/** Builds the source; `roots` defaults to {@link rootsFromEnv}. */
export function buildHostMetricsSource(config: HostMetricsConfig, ctx: SourceContext, roots: Roots = rootsFromEnv()): Observable<EventBatch> {
  const events = hostMetricsEvents(ctx);
  const has = new Set(config.collectors);
  const namespace = config.namespace === '' ? undefined : config.namespace;
  const host = hostname();
  const disks = compileFilter(config.disk.devices);
  const interfaces = compileFilter(config.network.devices);
  const processes = compileFilter(config.process.processes);
  const fsFilters = {
    devices: compileFilter(config.filesystem.devices),
    filesystems: compileFilter(config.filesystem.filesystems),
    mountpoints: compileFilter(config.filesystem.mountpoints),
  };
  const groups = compileFilter(config.cgroups.groups);
  return runSource(ctx, {}, (out) => {
    const layout = has.has('cgroups') ? detectCgroups(roots.sys) : undefined;
    if (has.has('cgroups') && layout === undefined) ctx.log.warn('Could not detect a cgroup hierarchy; the cgroups collector reports nothing.', { base_dir: `${roots.sys}/fs/cgroup` });
    const cgroupWalk = layout && { layout, base: config.cgroups.base ?? '/', levels: config.cgroups.levels, groups };
    const cpuState = new ProcessCpuState();

    const scrape = async (): Promise<EventBatch | undefined> => {
      const buffer = new MetricsBuffer(ctx.id, namespace, host, new Timestamp(Math.floor(ctx.scheduler.now())));
      const s: Scrape = { roots, out: buffer, events };
      // one collector at a time, in Vector's order: they share the buffer's collector tag
      if (cgroupWalk) await collectCgroups(s, cgroupWalk);
      if (has.has('cpu')) await collectCpu(s);
      if (has.has('process')) await collectProcesses(s, processes, cpuState);
      if (has.has('disk')) await collectDisk(s, disks);
      if (has.has('filesystem')) await collectFilesystem(s, fsFilters);
      if (has.has('load')) await collectLoad(s);
      if (has.has('host')) await collectHost(s);
      if (has.has('memory')) await collectMemory(s);
      if (has.has('network')) await collectNetwork(s, interfaces);
      if (has.has('tcp')) await collectTcp(s);
      const batch = buffer.metrics;
      // nothing comes over a wire: Vector counts 0 received bytes per scrape
      out.received(0);
      if (batch.length === 0) return undefined;
      rememberBatchSize(batch, batchSize(batch));
      return batch;
    };
    const sub = pullEvery(config.scrape_interval_secs * 1000, () => defer(scrape), ctx.out, ctx.scheduler).subscribe({
      next: (batch) => out.emit(batch),
      error: (err: unknown) => out.fail(err),
    });
    return { close: () => sub.unsubscribe() };
  });
}
