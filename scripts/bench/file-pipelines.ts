/**
 * file source pipelines against bare-Node programs doing the same job, each case in its own process:
 * `file -> socket(tcp)` (text, newline framing, to tcp-consumer.ts) and `file -> http` (ndjson
 * batches of 1,000, 4 in flight, to http-consumer.ts), each in two shapes: `prewritten` (a file of
 * N MiB of 200-byte lines written before the case starts) and `appended` (an empty file that a writer
 * process appends to at full speed while the case tails it). The bare-Node cases read the same file
 * with fs streams, split lines and write the same lines to the same tcp consumer, or POST the same
 * {message, timestamp} NDJSON batches to the same http consumer; appended, they re-open a read
 * stream at the last offset whenever the file grew.
 * Usage: node dist/scripts/bench/file-pipelines.js [MiB=256]
 * A weir case's time includes starting its topology (the file source starts reading as it starts).
 * Prints events/s, MiB/s, CPU seconds (user + system, all threads) per GiB, peak RSS and each weir
 * case's share of the MiB/s of the bare-Node case of the same sink and shape.
 */
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { firstLine, lineSplitter, peakRssMiB, script, startConsumer, whenDone } from './harness.js';

const LINE_BYTES = 200;
const PER_BLOCK = 20_000; // 4 MB blocks

/** One block of 200-byte lines (199 + newline), each distinct (the checksum fingerprint hashes the first line). */
function block(first: number, count: number): Buffer {
  const buf = Buffer.allocUnsafe(count * LINE_BYTES);
  for (let i = 0; i < count; i++) {
    const n = first + i;
    const line = `<34>1 2024-05-01T10:00:00.${String(n % 1000).padStart(3, '0')}Z host-${n % 17} app-${n % 5} ${n % 9999} ID${n % 47} - seq=${n} user=alice action=login status=ok path=/api/v1/items/${n % 1000} `;
    buf.write(line.padEnd(LINE_BYTES - 1, 'x') + '\n', i * LINE_BYTES, 'latin1');
  }
  return buf;
}

/** Appends `lines` lines to `path` block by block, each write waiting for the last (full speed, bounded memory). */
async function writeLines(path: string, lines: number, flags: string): Promise<void> {
  const out = createWriteStream(path, { flags });
  for (let n = 0; n < lines; n += PER_BLOCK) {
    if (!out.write(block(n, Math.min(PER_BLOCK, lines - n)))) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r) => out.end(r));
}

/**
 * Reads `path` from the start as fs streams, handing string chunks to `onChunk`; `pause()` and
 * `resume()` hold the reading back. With `follow`, it waits for the file to grow at its end and
 * reads on from the last offset, as a tailing program does.
 */
function readFile(path: string, follow: boolean, onChunk: (chunk: string) => void) {
  let offset = 0;
  let stream: ReturnType<typeof createReadStream> | undefined;
  let isPaused = false;
  const open = () => {
    stream = createReadStream(path, { start: offset, encoding: 'latin1', highWaterMark: 64 * 1024 });
    stream.on('data', (chunk) => {
      offset += chunk.length;
      onChunk(chunk as string);
    });
    stream.on('end', () => {
      stream = undefined;
      if (follow) setTimeout(poll, 5);
    });
    if (isPaused) stream.pause();
  };
  const poll = () => (statSync(path).size > offset ? open() : setTimeout(poll, 5));
  open();
  return {
    pause: () => {
      isPaused = true;
      stream?.pause();
    },
    resume: () => {
      isPaused = false;
      stream?.resume();
    },
  };
}

interface Result {
  seconds: number;
  rssMiB: number;
  cpuSeconds: number;
}

/** One case in this process: waits for "go", runs until the consumer side has every line, prints the result as JSON. */
async function runCase(kind: string, path: string, lines: number, follow: boolean): Promise<void> {
  let t0 = 0;
  let cpu0: NodeJS.CpuUsage = { user: 0, system: 0 };
  const go = new Promise<void>((resolve) =>
    createInterface({ input: process.stdin }).once('line', () => {
      t0 = performance.now();
      cpu0 = process.cpuUsage();
      resolve();
    }),
  );
  const report = () => {
    const cpu = process.cpuUsage(cpu0);
    const r: Result = { seconds: (performance.now() - t0) / 1000, rssMiB: peakRssMiB(), cpuSeconds: (cpu.user + cpu.system) / 1e6 };
    process.stdout.write(JSON.stringify(r) + '\n');
    process.exit(0);
  };
  /** tcp: the consumer counted every line. */
  let received = false;
  const tcpConsumer = () => startConsumer('tcp-consumer', [String(lines)], (l) => (received ||= l.startsWith('{"lines"')));

  if (kind === 'tcp-baseline') {
    const port = await tcpConsumer();
    process.stdout.write('READY\n');
    await go;
    const sock = connect(port, '127.0.0.1');
    const reader = readFile(path, follow, (chunk) => {
      if (!sock.write(chunk, 'latin1')) {
        reader.pause();
        sock.once('drain', reader.resume);
      }
    });
    await whenDone(() => received, 2);
    report();
  } else if (kind === 'http-baseline') {
    const port = await startConsumer('http-consumer', []);
    process.stdout.write('READY\n');
    await go;
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    let acked = 0;
    let inFlight = 0;
    const queue: { body: string; events: number }[] = [];
    let batch: string[] = [];
    let read = 0;
    let reader: ReturnType<typeof readFile> | undefined;
    const post = () => {
      while (inFlight < 4 && queue.length > 0) {
        const { body, events } = queue.shift()!;
        inFlight++;
        const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', agent, headers: { 'content-type': 'application/x-ndjson' } }, (res) => {
          res.resume();
          res.on('end', () => {
            inFlight--;
            acked += events;
            if (acked >= lines) report();
            post();
            if (queue.length < 8) reader?.resume();
          });
        });
        req.end(body);
      }
    };
    const split = lineSplitter((line) => {
      batch.push(JSON.stringify({ message: line, timestamp: new Date().toISOString() }));
      read++;
      // the last batch is short: it closes with the file's last line
      if (batch.length === 1000 || read >= lines) {
        queue.push({ body: batch.join('\n') + '\n', events: batch.length });
        batch = [];
      }
    });
    reader = readFile(path, follow, (chunk) => {
      split(chunk);
      post();
      if (queue.length >= 8) reader!.pause();
    });
  } else {
    const { configFromObject } = await import('../../lib/config/load.js');
    const { catalog, pipelineWorkerEntry } = await import('../../connectors/index.js');
    const { Topology } = await import('../../lib/topology/topology.js');
    const { LogRoot } = await import('../../lib/log.js');
    const dir = mkdtempSync(join(tmpdir(), 'weir-bench-file-data-'));
    // the checkpoints: report() exits without stopping the topology
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const sink =
      kind === 'tcp'
        ? { type: 'socket', inputs: ['in'], mode: 'tcp', address: `127.0.0.1:${await tcpConsumer()}`, encoding: { codec: 'text' }, framing: { method: 'newline_delimited' } }
        : {
            type: 'http',
            inputs: ['in'],
            uri: `http://127.0.0.1:${await startConsumer('http-consumer', [])}/`,
            encoding: { codec: 'ndjson' },
            batch: { max_events: 1000 },
            request: { concurrency: 4 },
            healthcheck: { enabled: false },
          };
    process.stdout.write('READY\n');
    await go;
    // the topology starts after "go": the file source reads from the moment it starts
    const config = configFromObject({ data_dir: dir, sources: { in: { type: 'file', include: [path] } }, sinks: { out: sink } }, catalog);
    const topo = new Topology({ log: new LogRoot('warn'), threads: 1, workerEntry: pipelineWorkerEntry });
    await topo.start(config);
    await whenDone(() => (kind === 'tcp' ? received : topo.registry.sum('component_sent_events_total', { component_id: 'out' }) >= lines), 2);
    report();
  }
}

async function main(): Promise<void> {
  const mib = Number(process.argv[2] ?? process.env.BENCH_MIB ?? 256);
  if (!(mib > 0)) {
    process.stderr.write(`file-pipelines: MiB must be a positive number (got ${JSON.stringify(process.argv[2])})\n`);
    process.exit(2);
  }
  const lines = Math.floor((mib * 1024 * 1024) / LINE_BYTES);
  const dir = mkdtempSync(join(tmpdir(), 'weir-bench-file-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const prewritten = join(dir, 'prewritten.log');
  await writeLines(prewritten, lines, 'w');
  const startup = (name: string) => new URL(`../../bin/startup/${name}${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;

  const run = async (kind: string, shape: string): Promise<Result> => {
    const appended = join(dir, `appended-${kind}.log`);
    if (shape === 'appended') writeFileSync(appended, '');
    const path = shape === 'appended' ? appended : prewritten;
    // weir's cases set V8's heap limits and WebAssembly tier before any other module loads, as bin/weir.ts does
    const heap = kind.endsWith('baseline') ? [] : ['--import', startup('heap-growth'), '--import', startup('wasm-tier')];
    // under tsx its loader comes first, so the startup modules load as TypeScript
    const self = script('file-pipelines');
    const child = spawn(process.execPath, [...self.slice(0, -1), ...heap, ...self.slice(-1), 'case', kind, path, String(lines), shape], { stdio: ['pipe', 'pipe', 'inherit'] });
    await firstLine(child, 'READY');
    const result = firstLine(child, '{').then((l) => JSON.parse('{' + l) as Result);
    child.stdin!.write('go\n');
    if (shape === 'appended') void writeLines(appended, lines, 'a');
    const r = await result;
    child.kill();
    rmSync(appended, { force: true });
    return r;
  };

  const cases = ['tcp-baseline', 'tcp', 'http-baseline', 'http'].flatMap((kind) => ['prewritten', 'appended'].map((shape) => ({ kind, shape })));
  const results: Result[] = [];
  for (const c of cases) results.push(await run(c.kind, c.shape));

  const mibPerSec = (r: Result) => (lines * LINE_BYTES) / 1048576 / r.seconds;
  console.log(`file source pipelines, ${mib} MiB of 200-byte lines (${lines.toLocaleString('en-US')} events), ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`);
  console.log('| case | shape | events/s | MiB/s | CPU s/GiB | peak RSS MiB | share of bare Node |');
  console.log('|---|---|---:|---:|---:|---:|---:|');
  cases.forEach((c, i) => {
    const r = results[i]!;
    const ref = cases.findIndex((x) => x.kind === `${c.kind.replace('-baseline', '')}-baseline` && x.shape === c.shape);
    const label = c.kind.endsWith('baseline') ? `bare Node -> ${c.kind.replace('-baseline', '')}` : `file -> ${c.kind === 'tcp' ? 'socket(tcp)' : 'http'}`;
    const share = c.kind.endsWith('baseline') ? '-' : `${((mibPerSec(r) / mibPerSec(results[ref]!)) * 100).toFixed(0)}%`;
    console.log(
      `| ${label} | ${c.shape} | ${Math.round(lines / r.seconds).toLocaleString('en-US')} | ${mibPerSec(r).toFixed(1)} | ${(r.cpuSeconds / ((lines * LINE_BYTES) / 1024 ** 3)).toFixed(2)} | ${r.rssMiB.toFixed(0)} | ${share} |`,
    );
  });
}

const [mode, kind = '', path = '', linesArg = '0', shape = 'prewritten'] = process.argv.slice(2);
if (mode === 'case') await runCase(kind, path, Number(linesArg), shape === 'appended');
else await main();
