/** The `network` collector: counters per interface from /proc/net/dev. */
import type { NameFilter } from './glob.js';
import { type Scrape, readOrReport } from './scrape.js';

/** Reads one scrape of the collector for the interfaces `devices` lets through. */
export async function collectNetwork(s: Scrape, devices: NameFilter): Promise<void> {
  s.out.collector = 'network';
  const text = await readOrReport(s, `${s.roots.proc}/net/dev`, 'Failed to load network info.');
  if (text === undefined) return;
  // two header lines, then `iface: rx bytes packets errs drop fifo frame compressed multicast tx bytes packets errs drop …`
  for (const line of text.split('\n').slice(2)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const device = line.slice(0, colon).trim();
    if (!devices(device)) continue;
    const c = line.slice(colon + 1).trim().split(/\s+/).map(Number);
    const tags = { device };
    s.out.counter('network_receive_bytes_total', c[0]!, tags);
    s.out.counter('network_receive_errs_total', c[2]!, tags);
    s.out.counter('network_receive_packets_total', c[1]!, tags);
    s.out.counter('network_transmit_bytes_total', c[8]!, tags);
    s.out.counter('network_transmit_packets_drop_total', c[11]!, tags);
    s.out.counter('network_transmit_packets_total', c[9]!, tags);
    s.out.counter('network_transmit_errs_total', c[10]!, tags);
  }
}
