/** The `process` collector: CPU, memory and run time per process from /proc/<pid>/stat and cmdline. */
import { execFileSync } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import type { NameFilter } from './glob.js';
import { CLK_TCK, type Scrape, readText } from './scrape.js';

let pageSize: number | undefined;
/** The kernel's page size (RSS is counted in pages); asked once. */
function pageBytes(): number {
  if (pageSize === undefined) {
    try {
      pageSize = Number(execFileSync('getconf', ['PAGESIZE'], { encoding: 'utf8' }).trim()) || 4096;
    } catch {
      pageSize = 4096;
    }
  }
  return pageSize;
}

/** CPU ticks seen at the previous scrape, per process and for the whole machine. */
export class ProcessCpuState {
  ticks = new Map<string, number>();
  /** Sum of every CPU's ticks (the `cpu ` line of /proc/stat) and the number of CPUs. */
  machineTicks = 0;
  cpus = 1;
}

const gone = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ESRCH';

/**
 * Reads one scrape of the collector for the processes whose name `processes` lets through. CPU
 * usage is the percentage of one CPU the process used since the previous scrape (0 on the first),
 * measured against the machine's own tick count, so no clock is read.
 */
export async function collectProcesses(s: Scrape, processes: NameFilter, state: ProcessCpuState): Promise<void> {
  s.out.collector = 'process';
  let pids: string[];
  let uptime: number;
  let machine = 0;
  let cpus = 0;
  try {
    pids = (await readdir(s.roots.proc)).filter((n) => /^\d+$/.test(n));
    uptime = Number.parseFloat(await readText(`${s.roots.proc}/uptime`));
    for (const line of (await readText(`${s.roots.proc}/stat`)).split('\n')) {
      if (line.startsWith('cpu ')) for (const n of line.slice(4).trim().split(/\s+/)) machine += Number(n);
      else if (/^cpu\d/.test(line)) cpus++;
    }
  } catch (err) {
    s.events.scrapeFailed('Failed to load process list.', err);
    return;
  }
  const elapsedPerCpu = state.machineTicks > 0 ? (machine - state.machineTicks) / Math.max(1, cpus) : 0;
  const ticks = new Map<string, number>();
  for (const pid of pids) {
    let stat: string;
    let cmdline: string;
    try {
      stat = await readText(`${s.roots.proc}/${pid}/stat`);
      cmdline = await readText(`${s.roots.proc}/${pid}/cmdline`);
    } catch (err) {
      // the process ended between the listing and the read
      if (!gone(err)) s.events.scrapeFailed('Failed to load process info.', err, { pid });
      continue;
    }
    const open = stat.indexOf('(');
    const close = stat.lastIndexOf(')');
    if (open < 0 || close < open) continue;
    const name = stat.slice(open + 1, close);
    if (!processes(name)) continue;
    // fields from the 3rd (state) on; field n of proc(5) is at n - 3
    const f = stat.slice(close + 2).split(' ');
    const used = Number(f[11]) + Number(f[12]);
    ticks.set(pid, used);
    const before = state.ticks.get(pid);
    const cpu = before !== undefined && elapsedPerCpu > 0 ? ((used - before) / elapsedPerCpu) * 100 : 0;
    const tags = { pid, name, command: cmdline.split('\0').filter((a) => a !== '').join(' ') };
    s.out.gauge('process_cpu_usage', cpu, tags);
    s.out.gauge('process_memory_usage', Number(f[21]) * pageBytes(), tags);
    s.out.gauge('process_memory_virtual_usage', Number(f[20]), tags);
    s.out.counter('process_runtime', Math.max(0, Math.floor(uptime - Number(f[19]) / CLK_TCK)), tags);
  }
  state.ticks = ticks;
  state.machineTicks = machine;
  state.cpus = cpus;
}
