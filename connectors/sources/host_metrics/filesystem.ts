/** The `filesystem` collector: every mount of /proc/mounts that passes the filters, sized with statfs(2). */
import { statfs } from 'node:fs/promises';
import type { NameFilter } from './glob.js';
import { type Scrape, readOrReport } from './scrape.js';

/** The three filters of the collector. */
export interface FilesystemFilters {
  readonly devices: NameFilter;
  readonly filesystems: NameFilter;
  readonly mountpoints: NameFilter;
}

// mounts escapes space, tab, newline and backslash as octal
const unescape = (s: string) => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8)));

/** Reads one scrape of the collector. A mount statfs cannot size is reported and skipped. */
export async function collectFilesystem(s: Scrape, filters: FilesystemFilters): Promise<void> {
  s.out.collector = 'filesystem';
  const text = await readOrReport(s, `${s.roots.proc}/mounts`, 'Failed to load partitions info.');
  if (text === undefined) return;
  for (const line of text.split('\n')) {
    const cols = line.split(' ');
    if (cols.length < 3) continue;
    // a device named `none` is no device, as Vector's library reads it
    const device = cols[0] === 'none' ? undefined : unescape(cols[0]!);
    const mountpoint = unescape(cols[1]!);
    const filesystem = cols[2]!;
    if (!filters.mountpoints(mountpoint) || !filters.devices(device) || !filters.filesystems(filesystem)) continue;
    let st;
    try {
      st = await statfs(mountpoint);
    } catch (err) {
      s.events.scrapeFailed('Failed to load partitions info.', err, { mount_point: mountpoint });
      continue;
    }
    const total = st.blocks * st.bsize;
    const free = st.bavail * st.bsize;
    const used = (st.blocks - st.bfree) * st.bsize;
    const tags: Record<string, string> = { filesystem, mountpoint };
    if (device !== undefined) tags.device = device;
    s.out.gauge('filesystem_free_bytes', free, tags);
    s.out.gauge('filesystem_total_bytes', total, tags);
    s.out.gauge('filesystem_used_bytes', used, tags);
    // of the space a user can have: reserved blocks count neither as used nor as free
    s.out.gauge('filesystem_used_ratio', used + free > 0 ? used / (used + free) : 0, tags);
    const inodesUsed = Math.max(0, st.files - st.ffree);
    s.out.gauge('filesystem_inodes_total', st.files, tags);
    s.out.gauge('filesystem_inodes_free', st.ffree, tags);
    s.out.gauge('filesystem_inodes_used', inodesUsed, tags);
    s.out.gauge('filesystem_inodes_used_ratio', st.files > 0 ? inodesUsed / st.files : 0, tags);
  }
}
