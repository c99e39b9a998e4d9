/**
 * One benchmark case in its own process (so peak RSS is its own): listens, prints "READY <port>",
 * waits for "go" on stdin, and prints one JSON result line once `lines` events were handled.
 * Usage: tcp-case.js <case> <lines> [threads=1] (threads: the Topology's, for weir's cases).
 * Cases: baseline (bare Node: read socket, split lines, one object per line), blackhole, file,
 * tcp (weir's socket sink, mode tcp, text codec, newline framing, to tcp-consumer.ts in another
 * process; done once the consumer counted every line), http-baseline (bare Node: lines ->
 * {message, timestamp} -> NDJSON POSTs of 1,000, 4 in flight) and http (weir's http sink, ndjson)
 * against the same minimal consumer in another process; regex-baseline (bare Node: the Apache
 * common-log regex on each line, its named captures copied into the object, then posted as
 * http-baseline does) and regex (socket -> remap(parse_regex) -> http); regex-tcp (the same remap,
 * then the socket sink writing JSON lines to the tcp consumer); regex-file (the same remap, then the
 * file sink writing JSON lines); disk is blackhole behind a
 * disk buffer (max_size 1 GiB) and also reports the store's bytes per event: counted at push
 * (buffer_received_event_bytes_total), on disk at its peak and after the run; http-disk is
 * socket -> remap (one field set) -> http behind a disk buffer (max_size 1 GiB).
 * Every result also holds this process's CPU time (user + system, all its threads) and the time its
 * main thread spent in garbage collection, both from "go" to the end of the run. Worker threads'
 * collections happen in their own isolates and are not observed here; their CPU time is counted.
 */
import { createServer } from 'node:net';
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';
import { PerformanceObserver } from 'node:perf_hooks';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFromObject } from '../../lib/config/load.js';
import { catalog, pipelineWorkerEntry } from '../../connectors/index.js';
import { Topology } from '../../lib/topology/topology.js';
import { LogRoot } from '../../lib/log.js';
import { diskBufferPath } from '../../lib/buffer/index.js';
import { sizeYoungGeneration } from '../../bin/startup/young-generation.js';
import { COMMON_LOG, baselineRecord } from './corpus.js';
import { freePort, lineSplitter, listening, startConsumer } from './harness.js';

const [kind = 'baseline', linesArg = '0', threadsArg = '1'] = process.argv.slice(2);
const lines = Number(linesArg);
const threads = Number(threadsArg);
// weir's cases run as the CLI does: tcp-pipelines loads bin/startup/heap-growth.ts and bin/startup/wasm-tier.ts (--import) before this
// module, and the young generation's bound follows what the topology runs
let t0 = 0;
let cpu0: NodeJS.CpuUsage = { user: 0, system: 0 };
let mainCpu0 = 0;

/**
 * CPU seconds of this process's main thread (Linux: /proc, 10 ms ticks), undefined elsewhere: with
 * worker threads the process's CPU time alone does not say whether the main thread is the bottleneck.
 */
function mainThreadCpu(): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime
  } catch {
    return undefined;
  }
}
/** Milliseconds of garbage collection on this thread since "go". */
let gcMs = 0;
const gc = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (t0 > 0 && e.startTime >= t0) gcMs += e.duration;
});
gc.observe({ entryTypes: ['gc'] });
const go = new Promise<void>((resolve) =>
  createInterface({ input: process.stdin }).once('line', () => {
    t0 = performance.now();
    cpu0 = process.cpuUsage();
    mainCpu0 = mainThreadCpu() ?? 0;
    resolve();
  }),
);

function report(extra: Record<string, unknown> = {}) {
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  // entries not yet handed to the callback (it runs asynchronously)
  for (const e of gc.takeRecords()) if (e.startTime >= t0) gcMs += e.duration;
  const rssMiB = process.resourceUsage().maxRSS / 1024;
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const main = mainThreadCpu();
  const mainCpuSeconds = main === undefined ? undefined : main - mainCpu0;
  process.stdout.write(JSON.stringify({ case: kind, threads, seconds, events: lines, rssMiB, cpuSeconds, mainCpuSeconds, gcSeconds: gcMs / 1000, ...extra }) + '\n');
  process.exit(0);
}

/** Bytes of the files under `dir` (0 when it does not exist yet). */
function dirBytes(dir: string): number {
  let n = 0;
  try {
    for (const f of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!f.isFile()) continue;
      try {
        n += statSync(join(f.parentPath ?? f.path, f.name)).size;
      } catch {
        // removed by a compaction meanwhile
      }
    }
  } catch {
    return 0;
  }
  return n;
}

const recordOf = baselineRecord(kind === 'regex-baseline');

if (kind === 'http-baseline' || kind === 'regex-baseline') {
  const consumer = await startConsumer('http-consumer');
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  let acked = 0;
  let inFlight = 0;
  const queue: string[] = [];
  /** Events in each queued body. */
  const sizes: number[] = [];
  let lines_: string[] = [];
  let paused: import('node:net').Socket | undefined;
  const post = () => {
    while (inFlight < 4 && queue.length > 0) {
      const body = queue.shift()!;
      const events = sizes.shift()!;
      inFlight++;
      const req = request({ host: '127.0.0.1', port: consumer, method: 'POST', path: '/', agent, headers: { 'content-type': 'application/x-ndjson' } }, (res) => {
        res.resume();
        res.on('end', () => {
          inFlight--;
          acked += events;
          if (acked >= lines) report();
          post();
          if (paused && queue.length < 8) {
            paused.resume();
            paused = undefined;
          }
        });
      });
      req.end(body);
    }
  };
  const server = createServer((sock) => {
    sock.setEncoding('utf8');
    const split = lineSplitter((line) => {
      lines_.push(recordOf(line));
      if (lines_.length === 1000) {
        queue.push(lines_.join('\n') + '\n');
        sizes.push(1000);
        lines_ = [];
      }
    });
    sock.on('data', (chunk: string) => {
      split(chunk);
      post();
      if (queue.length >= 8) {
        sock.pause();
        paused = sock;
      }
    });
    sock.on('end', () => {
      if (lines_.length) {
        queue.push(lines_.join('\n') + '\n');
        sizes.push(lines_.length);
        lines_ = [];
        post();
      }
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`READY ${(server.address() as { port: number }).port}\n`));
} else if (kind === 'baseline') {
  let count = 0;
  const objects: unknown[] = [];
  const server = createServer((sock) => {
    sock.setEncoding('utf8');
    // the least any pipeline does per line: one object holding the line and a timestamp
    const split = lineSplitter((line) => {
      objects.push({ message: line, timestamp: Date.now() });
      count++;
    });
    sock.on('data', (chunk: string) => {
      split(chunk);
      objects.length = 0;
      if (count >= lines) report();
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`READY ${(server.address() as { port: number }).port}\n`));
} else {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'weir-bench-'));
  /** tcp: the consumer counted every line. */
  let received = false;
  const sink =
    kind === 'file' || kind === 'regex-file'
      ? // regex-file writes the parsed fields as JSON lines
        { type: 'file', inputs: ['in'], path: join(dir, 'out.log'), encoding: { codec: kind === 'file' ? 'text' : 'json' } }
      : kind === 'tcp' || kind === 'regex-tcp'
        ? {
            type: 'socket',
            inputs: ['in'],
            mode: 'tcp',
            address: `127.0.0.1:${await startConsumer('tcp-consumer', [String(lines)], (l) => (received ||= l.startsWith('{"lines"')))}`,
            // regex-tcp writes the parsed fields as JSON lines
            encoding: { codec: kind === 'tcp' ? 'text' : 'json' },
            framing: { method: 'newline_delimited' },
          }
        : kind === 'http' || kind === 'regex' || kind === 'http-disk'
          ? {
              type: 'http',
              inputs: ['in'],
              uri: `http://127.0.0.1:${await startConsumer('http-consumer')}/`,
              encoding: { codec: 'ndjson' },
              batch: { max_events: 1000 },
              request: { concurrency: 4 },
              healthcheck: { enabled: false },
              ...(kind === 'http-disk' ? { buffer: { type: 'disk', max_size: 1024 ** 3 } } : {}),
            }
          : kind === 'disk'
            ? { type: 'blackhole', inputs: ['in'], print_interval_secs: 0, buffer: { type: 'disk', max_size: 1024 ** 3 } }
            : { type: 'blackhole', inputs: ['in'], print_interval_secs: 0 };
  const transforms =
    kind === 'regex' || kind === 'regex-tcp' || kind === 'regex-file'
      ? { parse: { type: 'remap', inputs: ['in'], source: `. |= parse_regex!(.message, r'${COMMON_LOG}')` } }
      : kind === 'http-disk'
        ? { parse: { type: 'remap', inputs: ['in'], source: '.pipeline = "bench"' } }
        : {};
  if (kind === 'regex' || kind === 'regex-tcp' || kind === 'regex-file' || kind === 'http-disk') (sink as { inputs: string[] }).inputs = ['parse'];
  const config = configFromObject({ data_dir: dir, sources: { in: { type: 'socket', mode: 'tcp', address: `127.0.0.1:${port}` } }, transforms, sinks: { out: sink } }, catalog);
  const topo = new Topology({ log: new LogRoot('warn'), threads, workerEntry: pipelineWorkerEntry });
  await topo.start(config);
  sizeYoungGeneration(topo.threadedSegments);
  await listening(port);
  process.stdout.write(`READY ${port}\n`);
  await go;
  const store = diskBufferPath(dir, 2, 'out');
  let peakDisk = 0;
  const sampler = kind === 'disk' ? setInterval(() => (peakDisk = Math.max(peakDisk, dirBytes(store))), 100) : undefined;
  const timer = setInterval(() => {
    if (kind === 'tcp' || kind === 'regex-tcp' ? received : topo.registry.sum('component_sent_events_total', { component_id: 'out' }) >= lines) {
      clearInterval(timer);
      clearInterval(sampler);
      const extra =
        kind === 'disk'
          ? {
              encodedPerEvent: topo.registry.sum('buffer_received_event_bytes_total', { component_id: 'out' }) / lines,
              peakDiskPerEvent: Math.max(peakDisk, dirBytes(store)) / lines,
              diskAfterPerEvent: dirBytes(store) / lines,
            }
          : {};
      // the store may still be compacting: what it leaves in the temporary folder is not worth a failed run
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        // left for the system's temporary-file cleanup
      }
      report(extra);
    }
  }, 2);
}
