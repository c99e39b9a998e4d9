/**
 * socket(tcp) pipelines against bare-Node baselines on the same corpus of 200-byte lines, each case
 * in its own process: events/s, MiB/s, peak RSS and each case's share of its baseline's MiB/s, then
 * the case process's CPU seconds (user + system, all threads) per GiB of input, the share of its
 * wall time its main thread was on a CPU (Linux), and the share its main thread spent in garbage
 * collection.
 * Usage: node dist/scripts/bench/tcp-pipelines.js [MiB=512] [cases=baseline,blackhole,file,http-baseline,http] [--threads N] [--rounds N]
 * Cases: `baseline` (bare Node: split lines, one object per line); `blackhole`, `file` and `tcp` (the
 * socket sink, text, newline framing, to a consumer process that counts lines), compared with
 * `baseline`; `http-baseline` (bare Node posting NDJSON) and `http`, compared with it;
 * `regex-baseline` and `regex` (Apache common log lines parsed with the common-log regex, then
 * posted as http does); `disk` (blackhole behind a disk buffer, compared with `blackhole`, with the
 * store's bytes per event); `http-disk` (socket -> remap -> http behind a disk buffer), compared with `http-baseline`.
 * A weir case takes a thread count as a suffix: `http@2` runs the http case with the Topology's
 * `threads` at 2 and is compared with `http-baseline` as `http` is; `http@1` is `http`. `--threads N`
 * sets it for the weir cases without a suffix (default 1). The case column shows it (`http@2`).
 * `--rounds N` (default 1) runs the whole list N times, case after case, so every case and its
 * reference meet the machine in the same state; the table then shows each figure's median with its
 * range, and a share is the median of the shares of each round (each against its own round's reference).
 */
import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { firstLine, script } from './harness.js';

const BARE = ['baseline', 'http-baseline', 'regex-baseline'];
const WEIR = ['blackhole', 'file', 'tcp', 'http', 'regex', 'regex-tcp', 'regex-file', 'disk', 'http-disk'];

/** `--threads N` and `--rounds N` (or `=N`), taken out of the positional arguments. */
function parseArgs(argv: string[]): { positional: string[]; threads: number; rounds: number } {
  const positional: string[] = [];
  let threads = 1;
  let rounds = 1;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const m = /^--(threads|rounds)(?:=(.*))?$/.exec(a);
    if (!m) positional.push(a);
    else if (m[1] === 'threads') threads = threadCount(m[2] ?? argv[++i], '--threads');
    else rounds = threadCount(m[2] ?? argv[++i], '--rounds');
  }
  return { positional, threads, rounds };
}

function threadCount(text: string | undefined, where: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) usage(`${where}: must be a whole number >= 1 (got ${JSON.stringify(text)})`);
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
  /** Its main thread's (Linux only). */
  mainCpuSeconds?: number;
  /** Garbage collection on its main thread over the run. */
  gcSeconds: number;
  /** disk: bytes per event counted at push, on disk at the peak, on disk after the run. */
  encodedPerEvent?: number;
  peakDiskPerEvent?: number;
  diskAfterPerEvent?: number;
}

async function runCase(c: Case): Promise<Result> {
  const sender = spawn(process.execPath, [...script('tcp-send'), String(mib), c.kind.startsWith('regex') ? 'apache' : 'syslog'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = Number(await firstLine(sender, 'READY'));
  // BENCH_CASE_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the measured process only
  const extra = (process.env.BENCH_CASE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // weir's cases set V8's heap limits and WebAssembly tier before any other module loads, as bin/weir.ts does first
  const startup = (name: string) => new URL(`../../bin/startup/${name}${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;
  const heap = c.kind.endsWith('baseline') ? [] : ['--import', startup('heap-growth'), '--import', startup('wasm-tier')];
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

/** One result per case per round: rounds[k][i] is case i of round k. */
const rounds: Result[][] = [];
for (let k = 0; k < args.rounds; k++) {
  const round: Result[] = [];
  for (const c of cases) round.push(await runCase(c));
  rounds.push(round);
}
const bytes = (r: Result) => r.events * 200;
const mibPerSec = (r: Result) => bytes(r) / 1048576 / r.seconds;
const firstOf = (kind: string) => cases.findIndex((c) => c.kind === kind);

/** The case each one is compared with (an index into `cases`): its bare-Node baseline; for disk, blackhole at the same threads. */
function refOf(c: Case): number {
  switch (c.kind) {
    case 'http':
    case 'http-disk':
    case 'http-baseline':
      return firstOf('http-baseline');
    case 'regex':
    case 'regex-baseline':
      return firstOf('regex-baseline');
    case 'disk': {
      const same = cases.findIndex((x) => x.kind === 'blackhole' && x.threads === c.threads);
      return same >= 0 ? same : firstOf('blackhole') >= 0 ? firstOf('blackhole') : firstOf('baseline');
    }
    default:
      return firstOf('baseline');
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
/** A figure of every round: the median, and with several rounds its range. */
const figure = (xs: number[], fmt: (x: number) => string) =>
  xs.length === 1 ? fmt(xs[0]!) : `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})`;

const rounds_ = args.rounds > 1 ? `, ${args.rounds} rounds: medians (ranges)` : '';
console.log(`socket(tcp) pipelines, ${mib} MiB of 200-byte lines, ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}${rounds_}`);
console.log('| case | events/s | MiB/s | peak RSS MiB | share of baseline | CPU s/GiB | main thread busy | GC share |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
cases.forEach((c, i) => {
  const rs = rounds.map((round) => round[i]!);
  const ref = refOf(c);
  const share =
    ref >= 0 ? `${figure(rounds.map((round) => (mibPerSec(round[i]!) / mibPerSec(round[ref]!)) * 100), (x) => x.toFixed(0))}% of ${cases[ref]!.label}` : '-';
  const int = (x: number) => Math.round(x).toLocaleString('en-US');
  console.log(
    `| ${c.label} | ${figure(rs.map((r) => r.events / r.seconds), int)} | ${figure(rs.map(mibPerSec), (x) => x.toFixed(1))} | ${figure(
      rs.map((r) => r.rssMiB),
      (x) => x.toFixed(0),
    )} | ${share} | ${figure(rs.map((r) => r.cpuSeconds / (bytes(r) / 1024 ** 3)), (x) => x.toFixed(2))} | ${
      rs.every((r) => r.mainCpuSeconds !== undefined) ? `${figure(rs.map((r) => (r.mainCpuSeconds! / r.seconds) * 100), (x) => x.toFixed(0))}%` : '-'
    } | ${figure(
      rs.map((r) => (r.gcSeconds / r.seconds) * 100),
      (x) => x.toFixed(1),
    )}% |`,
  );
});
cases.forEach((c, i) => {
  for (const round of rounds) {
    const r = round[i]!;
    if (r.encodedPerEvent !== undefined)
      console.log(`${c.label}: store bytes per event: ${r.encodedPerEvent.toFixed(1)} counted at push, ${r.peakDiskPerEvent!.toFixed(1)} on disk at the peak, ${r.diskAfterPerEvent!.toFixed(1)} on disk after the run`);
  }
});
