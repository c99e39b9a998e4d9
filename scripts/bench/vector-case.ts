/**
 * One side of a two-process relay benchmark (vector-pipelines.ts), in its own process so its CPU
 * time and peak RSS are its own. Roles:
 * - `weir-aggregator <lines>`: vector source -> blackhole; prints "READY <port>", and after "go" on
 *   stdin prints its result once the blackhole took `lines` events.
 * - `weir-agent <lines> <aggregator port>`: socket(tcp) -> vector sink; prints "READY <port>"; after
 *   "go" it runs, and on "report" prints its result.
 * - `bare-aggregator` / `bare-agent`: the bare-Node job: the agent splits lines, makes one object
 *   per line ({message, timestamp}) and sends them as NDJSON over one TCP connection; the
 *   aggregator splits and parses every line back into an object and counts.
 * A result is one JSON line: CPU seconds (user + system, all threads) and peak RSS from "go".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort, lineSplitter, listening, peakRssMiB, whenDone } from './harness.js';

const [role = '', linesArg = '0', aggPortArg = '0', threadsArg = '1'] = process.argv.slice(2);
const lines = Number(linesArg);
const threads = Number(threadsArg);
let t0 = 0;
let cpu0: NodeJS.CpuUsage = { user: 0, system: 0 };

const stdin = createInterface({ input: process.stdin });
const commands: ((line: string) => void)[] = [];
stdin.on('line', (l) => commands.shift()?.(l));
const next = () => new Promise<string>((resolve) => commands.push(resolve));

function report(): void {
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(JSON.stringify({ role, seconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6, rssMiB: peakRssMiB() }) + '\n');
}
const start = () => {
  t0 = performance.now();
  cpu0 = process.cpuUsage();
};

async function weir(sources: Record<string, unknown>, sinks: Record<string, unknown>) {
  const { catalog, pipelineWorkerEntry } = await import('../../connectors/index.js');
  const { configFromObject } = await import('../../lib/config/load.js');
  const { LogRoot } = await import('../../lib/log.js');
  const { Topology } = await import('../../lib/topology/topology.js');
  const dir = mkdtempSync(join(tmpdir(), `weir-bench-${role}-`));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const { sizeYoungGeneration } = await import('../../bin/startup/young-generation.js');
  const topo = new Topology({ log: new LogRoot('warn'), threads, workerEntry: pipelineWorkerEntry });
  await topo.start(configFromObject({ data_dir: dir, sources, sinks }, catalog));
  // as the CLI: the young generation's bound follows whether a segment runs in workers
  sizeYoungGeneration(topo.threadedSegments);
  return topo;
}

if (role === 'weir-aggregator') {
  const port = await freePort();
  const topo = await weir({ in: { type: 'vector', address: `127.0.0.1:${port}` } }, { out: { type: 'blackhole', inputs: ['in'] } });
  await listening(port);
  process.stdout.write(`READY ${port}\n`);
  await next();
  start();
  await whenDone(() => topo.registry.sum('component_sent_events_total', { component_id: 'out' }) >= lines);
  report();
  process.exit(0);
} else if (role === 'weir-agent') {
  const port = await freePort();
  await weir(
    { in: { type: 'socket', mode: 'tcp', address: `127.0.0.1:${port}` } },
    { out: { type: 'vector', inputs: ['in'], address: `127.0.0.1:${aggPortArg}`, healthcheck: { enabled: false } } },
  );
  await listening(port);
  process.stdout.write(`READY ${port}\n`);
  await next();
  start();
  await next();
  report();
  process.exit(0);
} else if (role === 'bare-aggregator') {
  let count = 0;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((r) => (done = r));
  const server = createServer((sock) => {
    sock.setEncoding('utf8');
    const split = lineSplitter((line) => {
      JSON.parse(line);
      if (++count >= lines) done();
    });
    sock.on('data', split);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  process.stdout.write(`READY ${(server.address() as { port: number }).port}\n`);
  await next();
  start();
  await finished;
  report();
  process.exit(0);
} else if (role === 'bare-agent') {
  const out = connect(Number(aggPortArg), '127.0.0.1');
  await new Promise<void>((r) => out.once('connect', () => r()));
  const server = createServer((sock) => {
    sock.setEncoding('utf8');
    let batch: string[] = [];
    const split = lineSplitter((line) => {
      batch.push(JSON.stringify({ message: line, timestamp: new Date().toISOString() }));
      if (batch.length === 1000) {
        if (!out.write(batch.join('\n') + '\n')) {
          sock.pause();
          out.once('drain', () => sock.resume());
        }
        batch = [];
      }
    });
    sock.on('data', split);
    sock.on('end', () => {
      if (batch.length > 0) out.write(batch.join('\n') + '\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  process.stdout.write(`READY ${(server.address() as { port: number }).port}\n`);
  await next();
  start();
  await next();
  report();
  process.exit(0);
} else {
  process.stderr.write(`vector-case: unknown role ${JSON.stringify(role)}\n`);
  process.exit(2);
}
