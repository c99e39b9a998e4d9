/** The `cpu` collector: seconds per CPU and mode from /proc/stat, and the logical and physical CPU counts. */
import { CLK_TCK, type Scrape, readOrReport, readText } from './scrape.js';

// /proc/stat columns after the `cpuN` label
const MODES: readonly [string, number][] = [
  ['idle', 3],
  ['io_wait', 4],
  ['nice', 1],
  ['system', 2],
  ['user', 0],
];

/** Reads one scrape of the collector; a failed read is reported and its metrics are left out. */
export async function collectCpu(s: Scrape): Promise<void> {
  s.out.collector = 'cpu';
  const stat = await readOrReport(s, `${s.roots.proc}/stat`, 'Failed to load CPU times.');
  if (stat === undefined) return;
  let logical = 0;
  for (const line of stat.split('\n')) {
    // per CPU lines only: `cpu ` is the sum of all
    if (!/^cpu\d/.test(line)) continue;
    const cols = line.trim().split(/\s+/).slice(1).map(Number);
    const cpu = String(logical++);
    for (const [mode, col] of MODES) s.out.counter('cpu_seconds_total', (cols[col] ?? 0) / CLK_TCK, { mode, cpu });
  }
  s.out.gauge('logical_cpus', logical);
  try {
    const physical = await physicalCount(s.roots.proc);
    if (physical === 0) s.events.scrapeFailed('Unable to determine physical CPU count.', 'no core ids in cpuinfo');
    else s.out.gauge('physical_cpus', physical);
  } catch (err) {
    s.events.scrapeFailed('Failed to load physical CPU count.', err);
  }
}

/** Distinct (physical id, core id) pairs of /proc/cpuinfo. */
async function physicalCount(proc: string): Promise<number> {
  const info = await readText(`${proc}/cpuinfo`);
  const cores = new Set<string>();
  let pkg = '';
  for (const line of info.split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim();
    if (key === 'physical id') pkg = line.slice(colon + 1).trim();
    else if (key === 'core id') cores.add(`${pkg}/${line.slice(colon + 1).trim()}`);
  }
  return cores.size;
}
