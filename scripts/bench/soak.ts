/**
 * Soak of `socket -> remap -> http` through the real daemon (`bin/weir`, default `--threads`): a
 * steady stream of 200-byte lines at a fixed rate over one connection, the http sink posting to
 * the benchmark's consumer process (batches of 1,000, 4 requests in flight, as the benchmark's
 * http cases), and the daemon's RSS sampled every second from /proc.
 * Usage: node dist/scripts/bench/soak.js <seconds> [events/s=20000] [out=soak.json]
 * Writes JSON: the settings, one `[seconds since start, RSS MiB]` sample per second, the events
 * sent and received, and the RSS after 5 minutes and at the end when the run was that long.
 * scripts/bench/plot-curves.ts draws it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, listening, processCpuSecs, processRssMiB, startConsumer } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, here.includes('/dist/') ? '../../..' : '../..');
const LINE_BYTES = 200;

const seconds = Number(process.argv[2]);
const rate = Number(process.argv[3] ?? 20_000);
const out = process.argv[4] ?? 'soak.json';
if (!(seconds > 0) || !(rate > 0)) {
  process.stderr.write('usage: soak.js <seconds> [events/s=20000] [out=soak.json]\n');
  process.exit(2);
}

const consumer = await startConsumer('http-consumer');
const port = await freePort();
const tmp = mkdtempSync(join(tmpdir(), 'weir-soak-'));
const cfg = join(tmp, 'soak.toml');
writeFileSync(
  cfg,
  `data_dir = "${tmp}"\n[sources.in]\ntype = "socket"\nmode = "tcp"\naddress = "127.0.0.1:${port}"\n` +
    `[transforms.tag]\ntype = "remap"\ninputs = ["in"]\nsource = '.pipeline = "soak"'\n` +
    `[sinks.out]\ntype = "http"\ninputs = ["tag"]\nuri = "http://127.0.0.1:${consumer}/"\nencoding.codec = "ndjson"\nbatch.max_events = 1000\nrequest.concurrency = 4\nhealthcheck.enabled = false\n`,
);
const child = spawn(process.execPath, [join(repo, 'bin/weir'), '--config', cfg], { stdio: ['ignore', 'ignore', 'inherit'] });
await listening(port);
const pid = child.pid!;

const line = (n: number) => `<34>1 2024-05-01T10:00:00Z host-${n % 17} app-${n % 5} - - seq=${n} status=ok `.padEnd(LINE_BYTES - 1, 'x') + '\n';
const sock = connect(port, '127.0.0.1');
let sent = 0;
const t0 = performance.now();
// every 100 ms, the lines due by then: a steady rate whatever the timer's lateness
const sender = setInterval(() => {
  const due = Math.floor(((performance.now() - t0) / 1000) * rate);
  const parts: string[] = [];
  while (sent < due) parts.push(line(sent++));
  if (parts.length > 0) sock.write(parts.join(''));
}, 100);
const samples: [number, number][] = [];
const cpu0 = processCpuSecs(pid);
const sampler = setInterval(() => samples.push([Math.round((performance.now() - t0) / 1000), Math.round(processRssMiB(pid) * 10) / 10]), 1000);
await new Promise((r) => setTimeout(r, seconds * 1000));
clearInterval(sender);
clearInterval(sampler);
const cpuSeconds = processCpuSecs(pid) - cpu0;
const stats = (await (await fetch(`http://127.0.0.1:${consumer}/stats`)).json()) as { events: number };
const at = (s: number) => samples.find(([t]) => t >= s)?.[1];
const result = {
  pipeline: 'socket -> remap -> http',
  rate,
  seconds,
  sent,
  received: stats.events,
  cpuSeconds,
  rssAfter5Min: at(300),
  rssAtEnd: samples[samples.length - 1]?.[1],
  samples,
};
writeFileSync(out, JSON.stringify(result) + '\n');
console.log(JSON.stringify({ ...result, samples: samples.length }));
sock.destroy();
child.kill('SIGKILL');
rmSync(tmp, { recursive: true, force: true });
process.exit(0);
