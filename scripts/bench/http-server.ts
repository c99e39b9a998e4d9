/**
 * `http_server -> blackhole` through the real daemon against a bare-Node server doing the same
 * parsing (node:http, body collected, split at newlines, each line JSON-parsed and given path,
 * timestamp and source_type, answered 200):
 * `node dist/scripts/bench/http-server.js [requests=4000] [lines per request=250] [concurrency=4]`.
 * Bodies are NDJSON lines of about 200 bytes, built before timing and posted over keep-alive
 * connections from this process. Reported per server: events/s and MiB/s (body bytes) from the
 * first post to the last 200, CPU seconds per GiB of body (user + system of the server process,
 * from /proc), and the server's peak RSS (VmHWM).
 * Measured on a shared 2-core machine under heavy other load (so events/s are noisy, CPU s/GiB
 * less so), 4000 x 250 lines, concurrency 4: weir 156,256 events/s, 29.4 MiB/s, 12.4 CPU s/GiB,
 * 95 MiB peak RSS; bare node:http 294,186 events/s, 55.3 MiB/s, 7.2 CPU s/GiB, 65 MiB.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, listening, ndjsonBodies as bodies, postAll, processCpuSecs as cpuSecs, processPeakRssMiB as peakRssMiB, script } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
// compiled: dist/scripts/bench; through tsx: scripts/bench
const repo = resolve(here, here.includes('/dist/') ? '../../..' : '../..');

/** The bare-Node server: what a hand-written program does with the same requests. */
function bare(port: number): void {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const now = new Date();
      const path = (req.url ?? '/').split('?', 1)[0];
      for (const line of text.split('\n')) {
        if (line === '') continue;
        const e = JSON.parse(line) as Record<string, unknown>;
        if (e.path === undefined) e.path = path;
        if (e.timestamp === undefined) e.timestamp = now;
        if (e.source_type === undefined) e.source_type = 'http_server';
      }
      res.writeHead(200, { 'content-length': 0 });
      res.end();
    });
  });
  server.listen(port, '127.0.0.1');
}

async function load(port: number, pid: number, payloads: Buffer[], requests: number, concurrency: number) {
  const cpu0 = cpuSecs(pid);
  const { secs, bytes, retried } = await postAll({ port, path: '/', contentType: 'application/x-ndjson' }, payloads, requests, concurrency);
  const cpu = cpuSecs(pid) - cpu0;
  return { secs, bytes, cpu, rss: peakRssMiB(pid), retried };
}

async function main(): Promise<void> {
  const requests = Number(process.argv[2] ?? 4000);
  const perRequest = Number(process.argv[3] ?? 250);
  const concurrency = Number(process.argv[4] ?? 4);
  const payloads = bodies(perRequest);
  const events = requests * perRequest;
  const report = (name: string, r: Awaited<ReturnType<typeof load>>) =>
    console.log(
      `${name.padEnd(28)} ${Math.round(events / r.secs).toLocaleString('en-US').padStart(10)} events/s  ${(r.bytes / r.secs / 1048576).toFixed(1).padStart(6)} MiB/s  ` +
        `${(r.cpu / (r.bytes / 2 ** 30)).toFixed(1).padStart(6)} CPU s/GiB  peak RSS ${Math.round(r.rss)} MiB${r.retried > 0 ? `  (${r.retried} retried after 503)` : ''}`,
    );
  console.log(`${requests} requests x ${perRequest} NDJSON lines (${(payloads[0]!.length / perRequest).toFixed(0)} bytes/line), concurrency ${concurrency}`);

  {
    const port = await freePort();
    const tmp = mkdtempSync(join(tmpdir(), 'weir-bench-http-server-'));
    const cfg = join(tmp, 'bench.toml');
    writeFileSync(
      cfg,
      `data_dir = "${tmp}"\n[sources.in]\ntype = "http_server"\naddress = "127.0.0.1:${port}"\ndecoding.codec = "json"\n` +
        `[sinks.hole]\ntype = "blackhole"\ninputs = ["in"]\nprint_interval_secs = 0\n`,
    );
    const child = spawn(process.execPath, [join(repo, 'bin/weir'), '--config', cfg], { stdio: ['ignore', 'ignore', 'inherit'] });
    try {
      await listening(port);
      report('weir http_server->blackhole', await load(port, child.pid!, payloads, requests, concurrency));
    } finally {
      child.kill('SIGKILL');
    }
  }
  {
    const port = await freePort();
    const child = spawn(process.execPath, [...script('http-server'), 'bare', String(port)], { stdio: ['ignore', 'ignore', 'inherit'] });
    try {
      await listening(port);
      report('bare node:http', await load(port, child.pid!, payloads, requests, concurrency));
    } finally {
      child.kill('SIGKILL');
    }
  }
}

if (process.argv[2] === 'bare') bare(Number(process.argv[3]));
else
  void main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
