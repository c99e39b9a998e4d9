/**
 * socket(tcp) pipelines against bare-Node baselines on the same corpus of 200-byte lines, each case
 * in its own process: events/s, MiB/s, peak RSS and each case's share of its baseline's MiB/s, then
 * the case process's CPU seconds (user + system, all threads) per GiB of input and the share of its
 * wall time its main thread spent in garbage collection.
 * Usage: node dist/scripts/bench/tcp-pipelines.js [MiB=512] [cases=baseline,blackhole,file,http-baseline,http] [--threads N]
 * Cases: `baseline` (bare Node: split lines, one object per line); `blackhole`, `file` and `tcp` (the
 * socket sink, text, newline framing, to a consumer process that counts lines), compared with
 * `baseline`; `http-baseline` (bare Node posting NDJSON) and `http`, compared with it;
 * `regex-baseline` and `regex` (Apache common log lines parsed with the common-log regex, then
 * posted as http does); `disk` (blackhole behind a disk buffer, compared with `blackhole`, with the
 * store's bytes per event).
 * A weir case takes a thread count as a suffix: `http@2` runs the http case with the Topology's
 * `threads` at 2 and is compared with `http-baseline` as `http` is; `http@1` is `http`. `--threads N`
 * sets it for the weir cases without a suffix (default 1). The case column shows it (`http@2`).
 */
import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { firstLine, script } from './harness.js';

const BARE = ['baseline', 'http-baseline', 'regex-baseline'];
const WEIR = ['blackhole', 'file', 'tcp', 'http', 'regex', 'disk'];

/** `--threads N` / `--threads=N`, taken out of the positional arguments. */
function parseArgs(argv: string[]): { positional: string[]; threads: number } {
  const positional: string[] = [];
  let threads = 1;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const m = /^--threads(?:=(.*))?$/.exec(a);
    if (!m) positional.push(a);
    else threads = threadCount(m[1] ?? argv[++i], '--threads');
  }
  return { positional, threads };
}

function threadCount(text: string | undefined, where: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) usage(`${where}: the thread count must be a whole number >= 1 (got ${JSON.stringify(text)})`);
  return n;
}

function usage(message: string): never {
  process.stderr.write(`tcp-pipelines: ${message}\n`);
  process.exit(2);
}

const args = parseArgs(process.argv.slice(2));
const mib = Number(args.positional[0] ?? process.env.BENCH_MIB ?? 512);
if (!(mib > 0)) usage(`MiB must be a positive number (got ${JSON.stringify(args.positional[0])})`);

interface Case {
  kind: string;
  /** The Topology's threads; undefined for the bare-Node cases. */
  threads?: number;
  /** What the table shows: the kind, and the thread count of a weir case. */
  label: string;
}

const cases: Case[] = (args.positional[1] ?? 'baseline,blackhole,file,http-baseline,http').split(',').map((spec) => {
  const [kind = '', suffix] = spec.split('@');
  if (BARE.includes(kind)) {
    if (suffix !== undefined) usage(`${spec}: bare-Node cases run on one thread and take no @threads`);
    return { kind, label: kind };
  }
  if (!WEIR.includes(kind)) usage(`unknown case ${JSON.stringify(spec)} (cases: ${[...BARE, ...WEIR].join(', ')})`);
  const threads = suffix === undefined ? args.threads : threadCount(suffix, spec);
  return { kind, threads, label: `${kind}@${threads}` };
});

interface Result {
  case: string;
  threads: number;
  seconds: number;
  events: number;
  rssMiB: number;
  /** The case process's user + system CPU time over the run. */
  cpuSeconds: number;
  /** Garbage collection on its main thread over the run. */
  gcSeconds: number;
  /** disk: bytes per event encoded, on disk at the peak, on disk after the run. */
  encodedPerEvent?: number;
  peakDiskPerEvent?: number;
  diskAfterPerEvent?: number;
}

async function runCase(c: Case): Promise<Result> {
  const sender = spawn(process.execPath, [...script('tcp-send'), String(mib), c.kind.startsWith('regex') ? 'apache' : 'syslog'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = Number(await firstLine(sender, 'READY'));
  // BENCH_CASE_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the measured process only
  const extra = (process.env.BENCH_CASE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // weir's cases set V8's heap limits before any other module loads, as bin/weir.ts does first
  const heap = c.kind.endsWith('baseline') ? [] : ['--import', new URL(import.meta.url.endsWith('.ts') ? '../../lib/heap-growth.ts' : '../../lib/heap-growth.js', import.meta.url).href];
  const child = spawn(process.execPath, [...extra, ...heap, ...script('tcp-case'), c.kind, String(lines), String(c.threads ?? 1)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await firstLine(child, 'READY');
  const result = firstLine(child, '{').then((l) => JSON.parse('{' + l) as Result);
  child.stdin!.write('go\n');
  sender.stdin!.write(`go ${port}\n`);
  const r = await result;
  sender.kill();
  child.kill();
  return r;
}

const results: { c: Case; r: Result }[] = [];
for (const c of cases) results.push({ c, r: await runCase(c) });
const bytes = (r: Result) => r.events * 200;
const mibPerSec = (r: Result) => bytes(r) / 1048576 / r.seconds;
const first = (kind: string) => results.find((x) => x.c.kind === kind);

/** The case each one is compared with: its bare-Node baseline; for disk, blackhole at the same threads. */
function refOf(c: Case): { c: Case; r: Result } | undefined {
  switch (c.kind) {
    case 'http':
    case 'http-baseline':
      return first('http-baseline');
    case 'regex':
    case 'regex-baseline':
      return first('regex-baseline');
    case 'disk':
      return results.find((x) => x.c.kind === 'blackhole' && x.c.threads === c.threads) ?? first('blackhole') ?? first('baseline');
    default:
      return first('baseline');
  }
}

console.log(`socket(tcp) pipelines, ${mib} MiB of 200-byte lines, ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`);
console.log('| case | events/s | MiB/s | peak RSS MiB | share of baseline | CPU s/GiB | GC share |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const { c, r } of results) {
  const ref = refOf(c);
  const share = ref ? `${((mibPerSec(r) / mibPerSec(ref.r)) * 100).toFixed(0)}% of ${ref.c.label}` : '-';
  const cpuPerGiB = r.cpuSeconds / (bytes(r) / 1024 ** 3);
  const gcShare = (r.gcSeconds / r.seconds) * 100;
  console.log(
    `| ${c.label} | ${Math.round(r.events / r.seconds).toLocaleString('en-US')} | ${mibPerSec(r).toFixed(1)} | ${r.rssMiB.toFixed(0)} | ${share} | ${cpuPerGiB.toFixed(2)} | ${gcShare.toFixed(1)}% |`,
  );
}
for (const { c, r } of results)
  if (r.encodedPerEvent !== undefined)
    console.log(`${c.label}: store bytes per event: ${r.encodedPerEvent.toFixed(1)} encoded, ${r.peakDiskPerEvent!.toFixed(1)} on disk at the peak, ${r.diskAfterPerEvent!.toFixed(1)} on disk after the run`);
