/** The `memory` collector: /proc/meminfo (kibibytes, whatever its `kB` says) and the swap counters of /proc/vmstat. */
import { type Scrape, field, readOrReport } from './scrape.js';

const KIB = 1024;
// /proc/vmstat counts swapped pages of 4 KiB, as psutil and Vector's library read it
const SWAP_PAGE = 4 * KIB;

/** Reads one scrape of the collector; a failed read is reported and its metrics are left out. */
export async function collectMemory(s: Scrape): Promise<void> {
  s.out.collector = 'memory';
  const info = await readOrReport(s, `${s.roots.proc}/meminfo`, 'Failed to load memory info.');
  if (info === undefined) return;
  const kib = (key: string) => (field(info, key) ?? 0) * KIB;
  const total = kib('MemTotal');
  const free = kib('MemFree');
  const buffers = kib('Buffers');
  const cached = kib('Cached');
  s.out.gauge('memory_total_bytes', total);
  s.out.gauge('memory_free_bytes', free);
  s.out.gauge('memory_available_bytes', kib('MemAvailable'));
  s.out.gauge('memory_active_bytes', kib('Active'));
  s.out.gauge('memory_buffers_bytes', buffers);
  s.out.gauge('memory_cached_bytes', cached);
  s.out.gauge('memory_shared_bytes', kib('Shmem'));
  s.out.gauge('memory_used_bytes', Math.max(0, total - free - buffers - cached));

  const swapTotal = kib('SwapTotal');
  const swapFree = kib('SwapFree');
  const vmstat = await readOrReport(s, `${s.roots.proc}/vmstat`, 'Failed to load swap info.');
  if (vmstat === undefined) return;
  const pages = (key: string) => {
    const m = new RegExp(`^${key} (\\d+)$`, 'm').exec(vmstat);
    return m ? Number(m[1]) * SWAP_PAGE : 0;
  };
  s.out.gauge('memory_swap_free_bytes', swapFree);
  s.out.gauge('memory_swap_total_bytes', swapTotal);
  s.out.gauge('memory_swap_used_bytes', swapTotal - swapFree);
  s.out.counter('memory_swapped_in_bytes_total', pages('pswpin'));
  s.out.counter('memory_swapped_out_bytes_total', pages('pswpout'));
}
