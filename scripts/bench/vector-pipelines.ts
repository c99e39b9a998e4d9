/**
 * An agent and an aggregator in two processes, against bare Node doing the same job, on the
 * corpus of 200-byte lines tcp-send writes: `socket -> vector` in the agent, `vector ->
 * blackhole` in the aggregator (the vector protocol over gRPC on loopback, Vector's default
 * batch of 1,000 events). The bare-Node pair (vector-case.ts): the agent splits the lines, makes
 * one object per line and sends NDJSON over one TCP connection; the aggregator parses every line
 * back. Reports events/s, CPU seconds per GiB of input (both processes together), each process's
 * peak RSS and weir's share of the baseline's throughput, one run of each.
 * Usage: node dist/scripts/bench/vector-pipelines.js [MiB=256] [threads=1,2]
 * Each thread count runs the weir pair with both processes' Topology at that `threads` (as
 * `--threads N`); a chain runs in workers only where its components can (docs/threads.md).
 */
import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { firstLine, script } from './harness.js';

const mib = Number(process.argv[2] ?? process.env.BENCH_MIB ?? 256);
const threadCounts = (process.argv[3] ?? '1,2').split(',').map(Number);
if (threadCounts.some((t) => !Number.isInteger(t) || t < 1)) {
  process.stderr.write('vector-pipelines: threads must be positive whole numbers, comma-separated\n');
  process.exit(2);
}
if (!(mib > 0)) {
  process.stderr.write('vector-pipelines: MiB must be a positive number\n');
  process.exit(2);
}

interface Side {
  seconds: number;
  cpuSeconds: number;
  rssMiB: number;
}
interface Result {
  label: string;
  lines: number;
  seconds: number;
  cpuSeconds: number;
  agentRss: number;
  aggregatorRss: number;
}

const startup = (name: string) => new URL(`../../bin/startup/${name}${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;

async function runPair(kind: 'weir' | 'bare', threads = 1): Promise<Result> {
  const sender = spawn(process.execPath, [...script('tcp-send'), String(mib)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = Number(await firstLine(sender, 'READY'));
  // weir's processes start as the CLI does: heap limits and WebAssembly tier first
  const heap = kind === 'weir' ? ['--import', startup('heap-growth'), '--import', startup('wasm-tier')] : [];
  // the heap imports go after tsx's loader when run from the sources
  const caseArgs = (...rest: string[]) => {
    const s = script('vector-case');
    // BENCH_CASE_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles both processes
    const extra = (process.env.BENCH_CASE_NODE_ARGS ?? '').split(' ').filter(Boolean);
    return [...extra, ...s.slice(0, -1), ...heap, s.at(-1)!, ...rest];
  };
  const aggregator = spawn(process.execPath, caseArgs(`${kind}-aggregator`, String(lines), '0', String(threads)), { stdio: ['pipe', 'pipe', 'inherit'] });
  const aggPort = await firstLine(aggregator, 'READY');
  const agent = spawn(process.execPath, caseArgs(`${kind}-agent`, String(lines), aggPort, String(threads)), { stdio: ['pipe', 'pipe', 'inherit'] });
  const agentPort = await firstLine(agent, 'READY');
  const aggResult = firstLine(aggregator, '{').then((l) => JSON.parse('{' + l) as Side);
  const agentResult = firstLine(agent, '{').then((l) => JSON.parse('{' + l) as Side);
  aggregator.stdin!.write('go\n');
  agent.stdin!.write('go\n');
  sender.stdin!.write(`go ${agentPort}\n`);
  const agg = await aggResult;
  agent.stdin!.write('report\n');
  const ag = await agentResult;
  sender.kill();
  // both exit by themselves after reporting (a profile, when asked for, is written on exit)
  await Promise.all([agent, aggregator].map((c) => (c.exitCode !== null ? undefined : new Promise((r) => c.once('exit', r)))));
  return { label: kind === 'weir' ? `weir@${threads}: socket -> vector => vector -> blackhole` : 'bare Node: lines -> NDJSON over TCP -> parsed', lines, seconds: agg.seconds, cpuSeconds: agg.cpuSeconds + ag.cpuSeconds, agentRss: ag.rssMiB, aggregatorRss: agg.rssMiB };
}

const bare = await runPair('bare');
const weirRuns: Result[] = [];
for (const t of threadCounts) weirRuns.push(await runPair('weir', t));
const gib = (r: Result) => (r.lines * 200) / 1024 ** 3;
console.log(`agent -> aggregator, two processes, ${mib} MiB of 200-byte lines, ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`);
console.log('| case | events/s | CPU s/GiB (both) | peak RSS MiB agent / aggregator | share of baseline |');
console.log('|---|---:|---:|---:|---:|');
for (const r of [bare, ...weirRuns]) {
  const share = r === bare ? '-' : `${((bare.seconds / r.seconds) * 100).toFixed(0)}%`;
  console.log(`| ${r.label} | ${Math.round(r.lines / r.seconds).toLocaleString('en-US')} | ${(r.cpuSeconds / gib(r)).toFixed(1)} | ${r.agentRss.toFixed(0)} / ${r.aggregatorRss.toFixed(0)} | ${share} |`);
}
