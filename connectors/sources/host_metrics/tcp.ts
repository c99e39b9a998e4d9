/** The `tcp` collector: connections per state and queued bytes from /proc/net/tcp and, with IPv6, /proc/net/tcp6. */
import { existsSync } from 'node:fs';
import { type Scrape, readText } from './scrape.js';

// the kernel's TCP state numbers (include/net/tcp_states.h), named as Vector names them
const STATES: Record<number, string> = {
  1: 'established',
  2: 'syn_sent',
  3: 'syn_recv',
  4: 'fin_wait1',
  5: 'fin_wait2',
  6: 'time_wait',
  7: 'close',
  8: 'close_wait',
  9: 'last_ack',
  10: 'listen',
  11: 'closing',
  12: 'new_syn_recv',
};

/** Reads one scrape of the collector. */
export async function collectTcp(s: Scrape): Promise<void> {
  s.out.collector = 'tcp';
  const states = new Map<string, number>();
  let tx = 0;
  let rx = 0;
  try {
    const files = [`${s.roots.proc}/net/tcp`];
    if (existsSync(`${s.roots.proc}/net/if_inet6`)) files.push(`${s.roots.proc}/net/tcp6`);
    for (const file of files) {
      const lines = (await readText(file)).split('\n');
      // header line, then `sl local rem st tx_queue:rx_queue …`
      for (let i = 1; i < lines.length; i++) {
        const cols = lines[i]!.trim().split(/\s+/);
        if (cols.length < 5) continue;
        const state = STATES[Number.parseInt(cols[3]!, 16)] ?? 'unknown';
        states.set(state, (states.get(state) ?? 0) + 1);
        const [t, r] = cols[4]!.split(':');
        tx += Number.parseInt(t!, 16);
        rx += Number.parseInt(r!, 16);
      }
    }
  } catch (err) {
    s.events.scrapeFailed('Failed to load tcp connection info.', err);
    return;
  }
  for (const [state, n] of states) s.out.gauge('tcp_connections_total', n, { state });
  s.out.gauge('tcp_tx_queued_bytes_total', tx);
  s.out.gauge('tcp_rx_queued_bytes_total', rx);
}
