/**
 * What every collector gets: the procfs and sysfs roots (`/proc`, `/sys`, or Vector's `PROCFS_ROOT`
 * and `SYSFS_ROOT`), the scrape's buffer, and the error report. Collectors read the kernel's text
 * files directly: the Node libraries for host statistics shell out to tools or cover a fraction of
 * these files, and the files are small and stable.
 */
import { readFile } from 'node:fs/promises';
import type { MetricsBuffer } from './buffer.js';
import type { HostMetricsEvents } from './events.js';

/** Where the kernel's files are. */
export interface Roots {
  readonly proc: string;
  readonly sys: string;
}

/** One scrape as a collector sees it. */
export interface Scrape {
  readonly roots: Roots;
  readonly out: MetricsBuffer;
  readonly events: HostMetricsEvents;
}

/** Scheduler ticks per second of /proc's CPU times (USER_HZ, 100 on every Linux architecture Node runs on). */
export const CLK_TCK = 100;

/** A file of procfs or sysfs as text. */
export const readText = (path: string): Promise<string> => readFile(path, 'latin1');

/** The number after `key` in a `Key:   123 kB` file (meminfo); undefined when absent. */
export function field(text: string, key: string): number | undefined {
  const at = text.indexOf(`\n${key}:`);
  const start = at >= 0 ? at + key.length + 2 : text.startsWith(`${key}:`) ? key.length + 1 : -1;
  if (start < 0) return undefined;
  const n = Number.parseInt(text.slice(start, text.indexOf('\n', start) >>> 0).trim(), 10);
  return Number.isNaN(n) ? undefined : n;
}

/** A file's text, or undefined after reporting `message` when it cannot be read. */
export async function readOrReport(s: Scrape, path: string, message: string): Promise<string | undefined> {
  try {
    return await readText(path);
  } catch (err) {
    s.events.scrapeFailed(message, err);
    return undefined;
  }
}
