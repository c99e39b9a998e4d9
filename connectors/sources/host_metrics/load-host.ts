/** The `load` collector (/proc/loadavg) and the `host` collector (uptime, boot time). */
import { type Scrape, readText } from './scrape.js';

/** Reads the load averages. */
export async function collectLoad(s: Scrape): Promise<void> {
  s.out.collector = 'load';
  try {
    const [l1, l5, l15] = (await readText(`${s.roots.proc}/loadavg`)).split(' ').map(Number);
    if (!Number.isFinite(l1) || !Number.isFinite(l5) || !Number.isFinite(l15)) throw new Error('loadavg holds no three numbers');
    s.out.gauge('load1', l1!);
    s.out.gauge('load5', l5!);
    s.out.gauge('load15', l15!);
  } catch (err) {
    s.events.scrapeFailed('Failed to load average info', err);
  }
}

/** Reads the uptime and the boot time (seconds since the epoch). */
export async function collectHost(s: Scrape): Promise<void> {
  s.out.collector = 'host';
  try {
    s.out.gauge('uptime', Number.parseFloat(await readText(`${s.roots.proc}/uptime`)));
  } catch (err) {
    s.events.scrapeFailed('Failed to load host uptime info', err);
  }
  try {
    const m = /^btime (\d+)$/m.exec(await readText(`${s.roots.proc}/stat`));
    if (!m) throw new Error('no btime line in stat');
    s.out.gauge('boot_time', Number(m[1]));
  } catch (err) {
    s.events.scrapeFailed('Failed to load host boot time info', err);
  }
}
