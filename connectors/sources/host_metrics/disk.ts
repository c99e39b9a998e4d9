/** The `disk` collector: I/O counters per block device from /proc/diskstats. */
import type { NameFilter } from './glob.js';
import { type Scrape, readOrReport } from './scrape.js';

// diskstats counts sectors of 512 bytes whatever the device's own sector size
const SECTOR = 512;

/** Reads one scrape of the collector for the devices `devices` lets through. */
export async function collectDisk(s: Scrape, devices: NameFilter): Promise<void> {
  s.out.collector = 'disk';
  const text = await readOrReport(s, `${s.roots.proc}/diskstats`, 'Failed to load disk I/O info.');
  if (text === undefined) return;
  for (const line of text.split('\n')) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 10) continue;
    const device = cols[2]!;
    if (!devices(device)) continue;
    const tags = { device };
    s.out.counter('disk_read_bytes_total', Number(cols[5]) * SECTOR, tags);
    s.out.counter('disk_reads_completed_total', Number(cols[3]), tags);
    s.out.counter('disk_written_bytes_total', Number(cols[9]) * SECTOR, tags);
    s.out.counter('disk_writes_completed_total', Number(cols[7]), tags);
  }
}
