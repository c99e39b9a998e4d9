/**
 * Baseline for the http sink: what bare Node does with the same job. Reads lines from a TCP
 * socket, wraps each as {message, timestamp}, POSTs NDJSON batches of 1,000 with a few requests
 * in flight (keep-alive) to the consumer (a child process), and reports events/s end to end.
 * Usage: npx tsx scripts/bench/http-baseline.ts [events=1000000] [inFlight=4]
 */
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const EVENTS = Number(process.argv[2] ?? 1_000_000);
const IN_FLIGHT = Number(process.argv[3] ?? 4);
const BATCH = 1000;
const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));

/** Starts a helper script in its own process (tsx loader); resolves with its first stdout line. */
function child(script: string, args: string[]): Promise<{ line: string; kill(): void; exited: Promise<void> }> {
  const p = spawn(process.execPath, ['--import', 'tsx', here(script), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((r) => p.once('exit', () => r()));
  return new Promise((resolve, reject) => {
    let out = '';
    p.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve({ line: out.slice(0, nl), kill: () => p.kill(), exited });
    });
    p.once('error', reject);
    p.once('exit', () => resolve({ line: out, kill: () => {}, exited }));
  });
}

async function stats(port: number): Promise<{ events: number; requests: number; bytes: number }> {
  const res = await fetch(`http://127.0.0.1:${port}/stats`);
  return (await res.json()) as { events: number; requests: number; bytes: number };
}

const consumer = await child('./http-consumer.ts', []);
const consumerPort = (JSON.parse(consumer.line) as { port: number }).port;
const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });

let inFlight = 0;
const waiting: Buffer[] = [];
let paused: (() => void) | undefined;
let posted = 0;

function post(body: Buffer): void {
  inFlight++;
  const req = request(
    { host: '127.0.0.1', port: consumerPort, method: 'POST', path: '/', agent, headers: { 'content-type': 'application/x-ndjson', 'content-length': body.length } },
    (res) => {
      res.resume();
      res.once('end', () => {
        inFlight--;
        posted++;
        const next = waiting.shift();
        if (next) post(next);
        if (inFlight < IN_FLIGHT && waiting.length === 0 && paused) {
          const resume = paused;
          paused = undefined;
          resume();
        }
      });
    },
  );
  req.end(body);
}

function submit(lines: string[]): void {
  const ts = new Date().toISOString();
  let body = '';
  for (let i = 0; i < lines.length; i++) body += (i ? '\n' : '') + JSON.stringify({ message: lines[i], timestamp: ts });
  const buf = Buffer.from(body);
  if (inFlight < IN_FLIGHT) post(buf);
  else waiting.push(buf);
}

const t0 = performance.now();
const server = createServer((socket) => {
  let rest = '';
  let batch: string[] = [];
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop()!;
    for (const line of parts) {
      batch.push(line);
      if (batch.length === BATCH) {
        submit(batch);
        batch = [];
      }
    }
    // backpressure: stop reading while requests are queued behind the in-flight limit
    if (waiting.length > 0 && !paused) {
      socket.pause();
      paused = () => socket.resume();
    }
  });
  socket.on('end', () => {
    if (rest) batch.push(rest);
    if (batch.length) submit(batch);
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const tcpPort = (server.address() as AddressInfo).port;
const generator = await child('./http-generator.ts', [String(tcpPort), String(EVENTS)]);

let s = await stats(consumerPort);
while (s.events < EVENTS) {
  await new Promise((r) => setTimeout(r, 20));
  s = await stats(consumerPort);
}
const secs = (performance.now() - t0) / 1000;
console.log(
  JSON.stringify({
    bench: 'http-baseline',
    events: s.events,
    requests: s.requests,
    in_flight: IN_FLIGHT,
    batch: BATCH,
    seconds: Number(secs.toFixed(3)),
    events_per_sec: Math.round(s.events / secs),
    wire_mb_per_sec: Number((s.bytes / secs / 1e6).toFixed(1)),
    node: process.version,
  }),
);
await generator.exited;
consumer.kill();
server.close();
agent.destroy();
void posted;
