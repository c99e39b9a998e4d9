/**
 * One benchmark case in its own process (so peak RSS is its own): listens, prints "READY <port>",
 * waits for "go" on stdin, and prints one JSON result line once `lines` events were handled.
 * Cases: baseline (bare Node: read socket, split lines, one object per line), blackhole, file.
 */
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFromObject } from '../../lib/config/load.js';
import { catalog } from '../../connectors/index.js';
import { Topology } from '../../lib/topology/topology.js';
import { LogRoot } from '../../lib/log.js';

const [kind = 'baseline', linesArg = '0'] = process.argv.slice(2);
const lines = Number(linesArg);
let t0 = 0;
const go = new Promise<void>((resolve) =>
  createInterface({ input: process.stdin }).once('line', () => {
    t0 = performance.now();
    resolve();
  }),
);

function report(extra: Record<string, unknown> = {}) {
  const seconds = (performance.now() - t0) / 1000;
  const rssMiB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify({ case: kind, seconds, events: lines, rssMiB, ...extra }) + '\n');
  process.exit(0);
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

if (kind === 'baseline') {
  let count = 0;
  let rest = '';
  const objects: unknown[] = [];
  const server = createServer((sock) => {
    sock.setEncoding('utf8');
    sock.on('data', (chunk: string) => {
      const text = rest + chunk;
      let start = 0;
      let nl: number;
      while ((nl = text.indexOf('\n', start)) >= 0) {
        // the least any pipeline does per line: one object holding the line and a timestamp
        objects.push({ message: text.slice(start, nl), timestamp: Date.now() });
        start = nl + 1;
        count++;
      }
      rest = text.slice(start);
      objects.length = 0;
      if (count >= lines) report();
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`READY ${(server.address() as { port: number }).port}\n`));
} else {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'weir-bench-'));
  const sink =
    kind === 'file'
      ? { type: 'file', inputs: ['in'], path: join(dir, 'out.log'), encoding: { codec: 'text' } }
      : { type: 'blackhole', inputs: ['in'], print_interval_secs: 0 };
  const config = configFromObject({ data_dir: dir, sources: { in: { type: 'socket', mode: 'tcp', address: `127.0.0.1:${port}` } }, sinks: { out: sink } }, catalog);
  const topo = new Topology({ log: new LogRoot('warn') });
  await topo.start(config);
  process.stdout.write(`READY ${port}\n`);
  await go;
  const timer = setInterval(() => {
    if (topo.registry.sum('component_sent_events_total', { component_id: 'out' }) >= lines) {
      clearInterval(timer);
      rmSync(dir, { recursive: true, force: true });
      report();
    }
  }, 2);
}
