/**
 * file source pipelines against bare-Node programs doing the same job, each case in its own process:
 * `file -> socket(tcp)` (text, newline framing, to tcp-consumer.ts), `file -> http` (ndjson
 * batches of 1,000, 4 in flight, to http-consumer.ts) and `file -> remap(parse_regex) -> http`
 * (`regex`: Apache common log lines parsed with the regex of tcp-pipelines' regex case, then posted
 * as http does), each in two shapes: `prewritten` (a file of N MiB of 200-byte lines written before
 * the case starts) and `appended` (an empty file that a writer process appends to at full speed
 * while the case tails it). The bare-Node cases read the same file with fs streams, split lines and
 * write the same lines to the same tcp consumer, or POST the same {message, timestamp} NDJSON
 * batches (with `regex-baseline` also the regex's captures) to the same http consumer; appended,
 * they re-open a read stream at the last offset whenever the file grew.
 * Usage: node dist/scripts/bench/file-pipelines.js [MiB=256] [cases=tcp-baseline,tcp,http-baseline,http]
 *   [--shapes prewritten,appended] [--rounds N]
 * A weir case takes the Topology's thread count as a suffix (`regex@2`, docs/threads.md); default 1.
 * A weir case's time includes starting its topology (the file source starts reading as it starts).
 * Prints, per round, events/s, MiB/s, CPU seconds (user + system, all threads) per GiB, the main
 * thread's CPU seconds per GiB (Linux), peak RSS, each weir case's share of the MiB/s of the
 * bare-Node case of the same sink and shape, and of the same case on one thread.
 */
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { COMMON_LOG, type Corpus, LINE_BYTES, baselineRecord, block } from './corpus.js';
import { firstLine, lineSplitter, peakRssMiB, processCpuSecs, script, startConsumer, whenDone } from './harness.js';

const PER_BLOCK = 20_000; // 4 MB blocks

/** Appends `lines` lines to `path` block by block, each write waiting for the last (full speed, bounded memory). */
async function writeLines(path: string, lines: number, flags: string, corpus: Corpus): Promise<void> {
  const out = createWriteStream(path, { flags });
  for (let n = 0; n < lines; n += PER_BLOCK) {
    if (!out.write(block(n, Math.min(PER_BLOCK, lines - n), corpus))) await new Promise<void>((r) => out.once('drain', () => r()));
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
  /** CPU seconds of the main thread alone (Linux), -1 elsewhere. */
  mainCpuSeconds: number;
}

/** CPU seconds this process's main thread used so far (Linux), -1 elsewhere. */
function mainThreadCpu(): number {
  try {
    return processCpuSecs(process.pid, process.pid);
  } catch {
    return -1;
  }
}

/** One case in this process: waits for "go", runs until the consumer side has every line, prints the result as JSON. */
async function runCase(kind: string, path: string, lines: number, follow: boolean, threads: number): Promise<void> {
  let t0 = 0;
  let cpu0: NodeJS.CpuUsage = { user: 0, system: 0 };
  let main0 = 0;
  const go = new Promise<void>((resolve) =>
    createInterface({ input: process.stdin }).once('line', () => {
      t0 = performance.now();
      cpu0 = process.cpuUsage();
      main0 = mainThreadCpu();
      resolve();
    }),
  );
  const report = () => {
    const cpu = process.cpuUsage(cpu0);
    const main = mainThreadCpu();
    const r: Result = { seconds: (performance.now() - t0) / 1000, rssMiB: peakRssMiB(), cpuSeconds: (cpu.user + cpu.system) / 1e6, mainCpuSeconds: main < 0 ? -1 : main - main0 };
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
  } else if (kind === 'http-baseline' || kind === 'regex-baseline') {
    const recordOf = baselineRecord(kind === 'regex-baseline');
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
      batch.push(recordOf(line));
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
    const { sizeYoungGeneration } = await import('../../bin/startup/young-generation.js');
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
    const transforms = kind === 'regex' ? { parse: { type: 'remap', inputs: ['in'], source: `. |= parse_regex!(.message, r'${COMMON_LOG}')` } } : {};
    if (kind === 'regex') sink.inputs = ['parse'];
    const config = configFromObject({ data_dir: dir, sources: { in: { type: 'file', include: [path] } }, transforms, sinks: { out: sink } }, catalog);
    const topo = new Topology({ log: new LogRoot('warn'), threads, workerEntry: pipelineWorkerEntry });
    await topo.start(config);
    // as bin/cli/run.ts: the main thread's young generation follows what runs in workers
    sizeYoungGeneration(topo.threadedSegments);
    await whenDone(() => (kind === 'tcp' ? received : topo.registry.sum('component_sent_events_total', { component_id: 'out' }) >= lines), 2);
    report();
  }
}

const BARE = ['tcp-baseline', 'http-baseline', 'regex-baseline'];
const WEIR = ['tcp', 'http', 'regex'];
const SHAPES = ['prewritten', 'appended'];

interface Case {
  readonly kind: string;
  readonly shape: string;
  /** The Topology's threads (1 for the bare-Node cases). */
  readonly threads: number;
}

function usage(message: string): never {
  process.stderr.write(`file-pipelines: ${message}\n`);
  process.exit(2);
}

/** `[MiB] [cases] [--shapes a,b] [--rounds N]`. */
function parseArgs(argv: string[]): { mib: number; cases: Case[]; rounds: number } {
  const positional: string[] = [];
  let shapes = SHAPES;
  let rounds = 1;
  for (let i = 0; i < argv.length; i++) {
    const m = /^--(shapes|rounds)(?:=(.*))?$/.exec(argv[i]!);
    if (!m) {
      positional.push(argv[i]!);
      continue;
    }
    const value = m[2] ?? argv[++i] ?? '';
    if (m[1] === 'rounds') rounds = Number(value);
    else shapes = value.split(',');
  }
  if (!(rounds >= 1 && Number.isInteger(rounds))) usage(`--rounds must be a positive whole number`);
  for (const shape of shapes) if (!SHAPES.includes(shape)) usage(`unknown shape ${JSON.stringify(shape)} (${SHAPES.join(', ')})`);
  const mib = Number(positional[0] ?? process.env.BENCH_MIB ?? 256);
  if (!(mib > 0)) usage(`MiB must be a positive number (got ${JSON.stringify(positional[0])})`);
  const kinds = (positional[1] ?? 'tcp-baseline,tcp,http-baseline,http').split(',').map((spec) => {
    const [kind = '', suffix] = spec.split('@');
    if (!BARE.includes(kind) && !WEIR.includes(kind)) usage(`unknown case ${JSON.stringify(kind)} (${[...BARE, ...WEIR].join(', ')})`);
    if (suffix !== undefined && BARE.includes(kind)) usage(`${spec}: bare-Node cases run on one thread and take no @threads`);
    const threads = Number(suffix ?? 1);
    if (!(threads >= 1 && Number.isInteger(threads))) usage(`${spec}: threads must be a positive whole number`);
    return { kind, threads };
  });
  return { mib, rounds, cases: kinds.flatMap((k) => shapes.map((shape) => ({ ...k, shape }))) };
}

async function main(): Promise<void> {
  const { mib, cases, rounds } = parseArgs(process.argv.slice(2));
  const lines = Math.floor((mib * 1024 * 1024) / LINE_BYTES);
  const dir = mkdtempSync(join(tmpdir(), 'weir-bench-file-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const corpusOf = (kind: string): Corpus => (kind.startsWith('regex') ? 'apache' : 'syslog');
  const prewritten = (corpus: Corpus) => join(dir, `prewritten-${corpus}.log`);
  for (const corpus of new Set(cases.filter((c) => c.shape === 'prewritten').map((c) => corpusOf(c.kind)))) await writeLines(prewritten(corpus), lines, 'w', corpus);
  const startup = (name: string) => new URL(`../../bin/startup/${name}${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;

  const run = async (c: Case): Promise<Result> => {
    const corpus = corpusOf(c.kind);
    const appended = join(dir, `appended-${c.kind}.log`);
    if (c.shape === 'appended') writeFileSync(appended, '');
    const path = c.shape === 'appended' ? appended : prewritten(corpus);
    // weir's cases set V8's heap limits and WebAssembly tier before any other module loads, as bin/weir.ts does
    const heap = c.kind.endsWith('baseline') ? [] : ['--import', startup('heap-growth'), '--import', startup('wasm-tier')];
    // under tsx its loader comes first, so the startup modules load as TypeScript
    const self = script('file-pipelines');
    const args = ['case', c.kind, path, String(lines), c.shape, String(c.threads)];
    const child = spawn(process.execPath, [...self.slice(0, -1), ...heap, ...self.slice(-1), ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
    await firstLine(child, 'READY');
    const result = firstLine(child, '{').then((l) => JSON.parse('{' + l) as Result);
    child.stdin!.write('go\n');
    if (c.shape === 'appended') void writeLines(appended, lines, 'a', corpus);
    const r = await result;
    child.kill();
    rmSync(appended, { force: true });
    return r;
  };

  const gib = (lines * LINE_BYTES) / 1024 ** 3;
  const mibPerSec = (r: Result) => (lines * LINE_BYTES) / 1048576 / r.seconds;
  const label = (c: Case) => {
    if (c.kind.endsWith('baseline')) return `bare Node -> ${c.kind === 'tcp-baseline' ? 'tcp' : c.kind === 'http-baseline' ? 'http' : 'regex -> http'}`;
    const chain = c.kind === 'tcp' ? 'file -> socket(tcp)' : c.kind === 'http' ? 'file -> http' : 'file -> remap(parse_regex) -> http';
    return `${chain}, threads ${c.threads}`;
  };
  const share = (results: Result[], i: number, ref: number) => (ref < 0 || ref === i ? '-' : `${((mibPerSec(results[i]!) / mibPerSec(results[ref]!)) * 100).toFixed(0)}%`);
  for (let round = 1; round <= rounds; round++) {
    const results: Result[] = [];
    for (const c of cases) results.push(await run(c));
    console.log(`file source pipelines, ${mib} MiB of 200-byte lines (${lines.toLocaleString('en-US')} events), ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, round ${round} of ${rounds}`);
    console.log('| case | shape | events/s | MiB/s | CPU s/GiB | main thread CPU s/GiB | peak RSS MiB | share of bare Node | share of threads 1 |');
    console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
    cases.forEach((c, i) => {
      const r = results[i]!;
      const bare = c.kind.endsWith('baseline') ? -1 : cases.findIndex((x) => x.kind === `${c.kind}-baseline` && x.shape === c.shape);
      const one = c.kind.endsWith('baseline') ? -1 : cases.findIndex((x) => x.kind === c.kind && x.shape === c.shape && x.threads === 1);
      const main = r.mainCpuSeconds < 0 ? '-' : (r.mainCpuSeconds / gib).toFixed(2);
      console.log(
        `| ${label(c)} | ${c.shape} | ${Math.round(lines / r.seconds).toLocaleString('en-US')} | ${mibPerSec(r).toFixed(1)} | ${(r.cpuSeconds / gib).toFixed(2)} | ${main} | ${r.rssMiB.toFixed(0)} | ${share(results, i, bare)} | ${share(results, i, one)} |`,
      );
    });
  }
}

const [mode, kind = '', path = '', linesArg = '0', shape = 'prewritten', threadsArg = '1'] = process.argv.slice(2);
if (mode === 'case') await runCase(kind, path, Number(linesArg), shape === 'appended', Number(threadsArg));
else await main();
