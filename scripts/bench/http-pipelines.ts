/**
 * `http_server -> remap -> http` through the real daemon (`bin/weir --threads N`), with a memory or
 * a disk buffer on the http sink, against a bare-Node program doing the same job: node:http, body
 * collected, split at newlines, each line JSON-parsed, given path, timestamp, source_type and the
 * remap's field, written back as NDJSON, posted in bodies of 1,000 events with 4 in flight to the
 * same consumer process (http-consumer.ts), the request answered once its events are queued (a
 * full queue holds the answers, as a full buffer holds weir's).
 * Usage: node dist/scripts/bench/http-pipelines.js [requests=4000] [cases=bare,weir@1,weir@2,disk@1,disk@2] [lines per request=250]
 * Bodies are NDJSON lines of about 200 bytes, built before timing and posted with 4 requests in
 * flight over keep-alive connections from this process. A case is timed from the first post to
 * the consumer's count of every event. Reported per case: events/s, MiB/s (request bodies),
 * CPU s/GiB of body (user + system of the server process, all its threads, from /proc), peak RSS
 * (VmHWM), the share of the run its main thread was on a CPU, and its share of the bare program's events/s. `--json` prints the results as JSON.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, listening, ndjsonBodies, postAll, processCpuSecs, processPeakRssMiB, script, startConsumer } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
// compiled: dist/scripts/bench; through tsx: scripts/bench
const repo = resolve(here, here.includes('/dist/') ? '../../..' : '../..');
const BATCH = 1000;
const IN_FLIGHT = 4;

/** The bare-Node program: what a hand-written forwarder does with the same requests. */
function bare(port: number, consumer: number): void {
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const queue: string[] = [];
  let pending: string[] = [];
  let inFlight = 0;
  /** Answers held while the queue is full. */
  const held: (() => void)[] = [];
  const post = () => {
    while (inFlight < IN_FLIGHT && queue.length > 0) {
      inFlight++;
      const r = request({ host: '127.0.0.1', port: consumer, method: 'POST', path: '/', agent, headers: { 'content-type': 'application/x-ndjson' } }, (res) => {
        res.resume();
        res.on('end', () => {
          inFlight--;
          post();
          while (queue.length < 8 && held.length > 0) held.shift()!();
        });
      });
      r.end(queue.shift());
    }
  };
  const flush = () => {
    if (pending.length === 0) return;
    queue.push(pending.join('\n') + '\n');
    pending = [];
  };
  // a partial batch goes out after 1 s, as the sink's batch timeout sends it
  setInterval(() => (flush(), post()), 1000).unref();
  createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const now = new Date().toISOString();
      const path = (req.url ?? '/').split('?', 1)[0];
      for (const line of text.split('\n')) {
        if (line === '') continue;
        const e = JSON.parse(line) as Record<string, unknown>;
        if (e.path === undefined) e.path = path;
        e.timestamp ??= now;
        e.source_type ??= 'http_server';
        e.pipeline = 'bench';
        pending.push(JSON.stringify(e));
        if (pending.length === BATCH) flush();
      }
      post();
      const answer = () => {
        res.writeHead(200, { 'content-length': 0 });
        res.end();
      };
      if (queue.length < 8) answer();
      else held.push(answer);
    });
  }).listen(port, '127.0.0.1');
}

interface Result {
  case: string;
  threads?: number;
  seconds: number;
  events: number;
  bytes: number;
  cpuSeconds: number;
  /** The server's main thread's (Linux). */
  mainCpuSeconds: number;
  rssMiB: number;
  retried: number;
}

/** The consumer's event count. */
async function consumed(consumer: number): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${consumer}/stats`);
  return ((await res.json()) as { events: number }).events;
}

async function runCase(name: string, payloads: Buffer[], requests: number, perRequest: number): Promise<Result> {
  const consumer = await startConsumer('http-consumer');
  const before = await consumed(consumer);
  const port = await freePort();
  const [kind = 'bare', t] = name.split('@');
  const threads = t === undefined ? undefined : Number(t);
  const tmp = mkdtempSync(join(tmpdir(), 'weir-bench-http-pipelines-'));
  let child;
  if (kind === 'bare') child = spawn(process.execPath, [...script('http-pipelines'), 'bare', String(port), String(consumer)], { stdio: ['ignore', 'ignore', 'inherit'] });
  else {
    const cfg = join(tmp, 'bench.toml');
    const buffer = kind === 'disk' ? `buffer.type = "disk"\nbuffer.max_size = ${1024 ** 3}\n` : '';
    writeFileSync(
      cfg,
      `data_dir = "${tmp}"\n[sources.in]\ntype = "http_server"\naddress = "127.0.0.1:${port}"\ndecoding.codec = "json"\n` +
        `[transforms.tag]\ntype = "remap"\ninputs = ["in"]\nsource = '.pipeline = "bench"'\n` +
        `[sinks.out]\ntype = "http"\ninputs = ["tag"]\nuri = "http://127.0.0.1:${consumer}/"\nencoding.codec = "ndjson"\nbatch.max_events = ${BATCH}\n` +
        `request.concurrency = ${IN_FLIGHT}\nhealthcheck.enabled = false\n${buffer}`,
    );
    child = spawn(process.execPath, [join(repo, 'bin/weir'), '--config', cfg, '--threads', String(threads ?? 1)], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  try {
    await listening(port);
    const events = requests * perRequest;
    const pid = child.pid!;
    const cpu0 = processCpuSecs(pid);
    const main0 = processCpuSecs(pid, pid);
    const t0 = performance.now();
    const { bytes, retried } = await postAll({ port, path: '/', contentType: 'application/x-ndjson' }, payloads, requests, IN_FLIGHT);
    while ((await consumed(consumer)) - before < events) await new Promise((r) => setTimeout(r, 5));
    const seconds = (performance.now() - t0) / 1000;
    return { case: name, threads, seconds, events, bytes, cpuSeconds: processCpuSecs(pid) - cpu0, mainCpuSeconds: processCpuSecs(pid, pid) - main0, rssMiB: processPeakRssMiB(pid), retried };
  } finally {
    child.kill('SIGKILL');
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2).filter((a) => a !== '--json');
  const json = process.argv.includes('--json');
  const requests = Number(args[0] ?? 4000);
  const cases = (args[1] ?? 'bare,weir@1,weir@2,disk@1,disk@2').split(',');
  const perRequest = Number(args[2] ?? 250);
  const payloads = ndjsonBodies(perRequest);
  const results: Result[] = [];
  for (const c of cases) results.push(await runCase(c, payloads, requests, perRequest));
  if (json) return void console.log(JSON.stringify(results));
  const bareRate = results.find((r) => r.case === 'bare');
  console.log(`http_server -> remap -> http: ${requests} requests x ${perRequest} NDJSON lines (${(payloads[0]!.length / perRequest).toFixed(0)} bytes/line), ${IN_FLIGHT} in flight`);
  console.log('| case | events/s | MiB/s | CPU s/GiB | main thread busy | peak RSS MiB | share of bare |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    const share = bareRate ? `${((bareRate.seconds / r.seconds) * 100).toFixed(0)}%` : '-';
    console.log(
      `| ${r.case} | ${Math.round(r.events / r.seconds).toLocaleString('en-US')} | ${(r.bytes / r.seconds / 1048576).toFixed(1)} | ${(r.cpuSeconds / (r.bytes / 2 ** 30)).toFixed(1)} | ${((r.mainCpuSeconds / r.seconds) * 100).toFixed(0)}% | ${Math.round(r.rssMiB)} | ${share}${r.retried > 0 ? ` (${r.retried} retried after 503)` : ''} |`,
    );
  }
}

if (process.argv[2] === 'bare') bare(Number(process.argv[3]), Number(process.argv[4]));
else
  void main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
