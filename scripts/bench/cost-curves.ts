/**
 * How weir's cost grows with the work: CPU seconds per GiB of input and peak RSS of the real daemon
 * (`bin/weir`, default `--threads`), one daemon per point, against
 * - connections (1 → 1,000): `socket -> http`, the input spread evenly over the connections;
 * - partitions of a templated sink key (1 → 10,000): `socket (json) -> file` with
 *   `path = "<dir>/{{ p }}.log"`, the lines cycling through the partitions (one open file each);
 * - event size (100 B → 16 KiB): `socket -> http`, one connection;
 * - events in flight (1,000 → 100,000): `socket -> http`, 4 requests of `x / 4` events in flight,
 *   each answered by the consumer after `x / 40,000` s (so the requests, not the CPU, set the pace:
 *   at most 40,000 events/s, every request slot full); the point also records the most events the
 *   consumer held unanswered at once (`consumerWaitingPeak`).
 * The http sink posts NDJSON (batches of 1,000, 4 in flight unless said) to the benchmark's consumer process.
 * Usage: node dist/scripts/bench/cost-curves.js [out=docs/performance/cost-curves.json] [MiB per point=64] [curves=connections,partitions,size,inflight]
 * Writes JSON: per curve, its points `{ x, seconds, events, bytes, cpuSecondsPerGiB, peakRssMiB }`;
 * the curves of an existing file that are not run keep their points.
 * scripts/bench/plot-curves.ts draws it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, listening, processCpuSecs, processPeakRssMiB, startConsumer } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, here.includes('/dist/') ? '../../..' : '../..');

const out = process.argv[2] ?? join(repo, 'docs/performance/cost-curves.json');
const mib = Number(process.argv[3] ?? 64);
const curves = (process.argv[4] ?? 'connections,partitions,size,inflight').split(',');

export interface Point {
  readonly x: number;
  readonly seconds: number;
  readonly events: number;
  readonly bytes: number;
  readonly cpuSecondsPerGiB: number;
  readonly peakRssMiB: number;
  /** inflight curve: the most events the consumer held unanswered at once. */
  readonly consumerWaitingPeak?: number;
}

/** Events per second the inflight curve's delayed answers allow at most. */
const INFLIGHT_RATE = 40_000;

/** A line of `size` bytes (newline included) for event `n`; `p`: its partition, as a JSON line. */
function line(n: number, size: number, p?: number): string {
  const head = p === undefined ? `<34>1 2024-05-01T10:00:00Z host-${n % 17} app - - seq=${n} ` : `{"p":"${p}","message":"seq=${n} `;
  const tail = p === undefined ? '\n' : '"}\n';
  return head + 'x'.repeat(Math.max(0, size - head.length - tail.length)) + tail;
}

/** Writes `corpus` to each connection until each has sent its share; resolves when all are written. */
async function send(port: number, connections: number, corpus: Buffer, repeats: number): Promise<void> {
  const one = async (count: number) => {
    if (count === 0) return;
    const s = connect(port, '127.0.0.1');
    await new Promise<void>((ok, fail) => s.once('connect', ok).once('error', fail));
    for (let i = 0; i < count; i++) if (!s.write(corpus)) await new Promise((r) => s.once('drain', r));
    await new Promise<void>((r) => s.end(r));
  };
  // the corpus repeats, spread as evenly as they go over the connections
  await Promise.all(Array.from({ length: connections }, (_, c) => one(Math.floor(repeats / connections) + (c < repeats % connections ? 1 : 0))));
}

/** Bytes of the files under `dir`. */
function dirBytes(dir: string): number {
  let n = 0;
  for (const f of readdirSync(dir)) if (f.endsWith('.log')) n += statSync(join(dir, f)).size;
  return n;
}

const consumer = await startConsumer('http-consumer');
const consumed = async () => ((await (await fetch(`http://127.0.0.1:${consumer}/stats`)).json()) as { events: number }).events;
/** The most events the consumer held unanswered since the last call. */
const waitingPeak = async () => ((await (await fetch(`http://127.0.0.1:${consumer}/stats/peak`)).json()) as { waitingPeak: number }).waitingPeak;

/** One point: a daemon with the sink, the corpus sent `repeats` times over `connections`. */
async function point(x: number, opts: { connections: number; lineBytes: number; partitions?: number; inFlight?: number }): Promise<Point> {
  const tmp = mkdtempSync(join(tmpdir(), 'weir-cost-'));
  const port = await freePort();
  const { connections, lineBytes, partitions, inFlight } = opts;
  // a corpus of 1 MiB (less when each connection's share is smaller), one line per partition at least
  const corpusLines = Math.max(partitions ?? 0, Math.ceil(Math.min(1048576, (mib * 1048576) / connections) / lineBytes));
  const lines = Array.from({ length: corpusLines }, (_, i) => line(i, lineBytes, partitions === undefined ? undefined : i % partitions));
  const corpus = Buffer.from(lines.join(''));
  // the file sink writes each message and a newline: a JSON line less its wrapping
  const corpusFileBytes = partitions === undefined ? 0 : lines.reduce((n, l) => n + Buffer.byteLength((JSON.parse(l) as { message: string }).message) + 1, 0);
  const repeats = Math.max(connections, Math.round((mib * 1048576) / corpus.length));
  const events = corpusLines * repeats;
  const bytes = corpus.length * repeats;
  const source = `[sources.in]\ntype = "socket"\nmode = "tcp"\naddress = "127.0.0.1:${port}"\nmax_length = 65536\nconnection_limit = 5000\n${partitions !== undefined ? 'decoding.codec = "json"\n' : ''}`;
  // in flight: 4 requests of inFlight / 4 events, each answered after inFlight / INFLIGHT_RATE seconds
  const http = (maxEvents: number, delayMs: number) =>
    `[sinks.out]\ntype = "http"\ninputs = ["in"]\nuri = "http://127.0.0.1:${consumer}/${delayMs > 0 ? `?delay_ms=${delayMs}` : ''}"\nencoding.codec = "ndjson"\nbatch.max_events = ${maxEvents}\nrequest.concurrency = 4\nhealthcheck.enabled = false\n`;
  const sink =
    partitions !== undefined
      ? `[sinks.out]\ntype = "file"\ninputs = ["in"]\npath = "${tmp}/{{ p }}.log"\nencoding.codec = "text"\n`
      : inFlight !== undefined
        ? http(inFlight / 4, Math.round((inFlight / INFLIGHT_RATE) * 1000))
        : http(1000, 0);
  const cfg = join(tmp, 'cost.toml');
  writeFileSync(cfg, `data_dir = "${tmp}"\n${source}${sink}`);
  const child = spawn(process.execPath, [join(repo, 'bin/weir'), '--config', cfg], { stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    await listening(port);
    const pid = child.pid!;
    const before = partitions === undefined ? await consumed() : 0;
    if (inFlight !== undefined) await waitingPeak();
    const fileBytes = corpusFileBytes * repeats;
    const done = async () => (partitions === undefined ? (await consumed()) - before >= events : dirBytes(tmp) >= fileBytes);
    const cpu0 = processCpuSecs(pid);
    const t0 = performance.now();
    await send(port, connections, corpus, repeats);
    while (!(await done())) await new Promise((r) => setTimeout(r, 10));
    const seconds = (performance.now() - t0) / 1000;
    const cpu = processCpuSecs(pid) - cpu0;
    const measured = { x, seconds, events, bytes, cpuSecondsPerGiB: cpu / (bytes / 2 ** 30), peakRssMiB: processPeakRssMiB(pid) };
    return inFlight === undefined ? measured : { ...measured, consumerWaitingPeak: await waitingPeak() };
  } finally {
    child.kill('SIGKILL');
    rmSync(tmp, { recursive: true, force: true });
  }
}

// the curves not run this time keep their points from the file
const previous = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>) : {};
const result: Record<string, unknown> = { ...previous, machine: `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}`, node: process.version, mibPerPoint: mib };
for (const curve of curves) {
  const points: Point[] = [];
  const xs =
    curve === 'connections'
      ? [1, 10, 100, 1000]
      : curve === 'partitions'
        ? [1, 10, 100, 1000, 10_000]
        : curve === 'inflight'
          ? [1000, 4000, 10_000, 40_000, 100_000]
          : [100, 1024, 4096, 16_384];
  for (const x of xs) {
    const p =
      curve === 'connections'
        ? await point(x, { connections: x, lineBytes: 200 })
        : curve === 'partitions'
          ? await point(x, { connections: 1, lineBytes: 200, partitions: x })
          : curve === 'inflight'
            ? await point(x, { connections: 1, lineBytes: 200, inFlight: x })
            : await point(x, { connections: 1, lineBytes: x });
    console.log(JSON.stringify({ curve, ...p }));
    points.push(p);
  }
  result[curve] = points;
}
writeFileSync(out, JSON.stringify(result, null, 1) + '\n');
process.exit(0);
