/**
 * socket(tcp) pipelines against a bare-Node baseline on the same corpus of 200-byte lines:
 * events/s, MiB/s and peak RSS per case, and each case's share of the baseline's MiB/s.
 * Usage: node dist/scripts/bench/tcp-pipelines.js [MiB=512] [cases=baseline,blackhole,file,http-baseline,http]
 * (also `disk`: blackhole behind a disk buffer, compared with `blackhole`, with the store's bytes per event;
 * `regex-baseline` and `regex`: Apache common log lines parsed with the common-log regex, then posted as http does)
 */
import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { firstLine, script } from './harness.js';

const mib = Number(process.argv[2] ?? process.env.BENCH_MIB ?? 512);
const cases = (process.argv[3] ?? 'baseline,blackhole,file,http-baseline,http').split(',');

interface Result {
  case: string;
  seconds: number;
  events: number;
  rssMiB: number;
  /** disk: bytes per event encoded, on disk at the peak, on disk after the run. */
  encodedPerEvent?: number;
  peakDiskPerEvent?: number;
  diskAfterPerEvent?: number;
}

async function runCase(kind: string): Promise<Result> {
  const sender = spawn(process.execPath, [...script('tcp-send'), String(mib), kind.startsWith('regex') ? 'apache' : 'syslog'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = Number(await firstLine(sender, 'READY'));
  // BENCH_CASE_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the measured process only
  const extra = (process.env.BENCH_CASE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const c = spawn(process.execPath, [...extra, ...script('tcp-case'), kind, String(lines)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await firstLine(c, 'READY');
  const result = firstLine(c, '{').then((l) => JSON.parse('{' + l) as Result);
  c.stdin!.write('go\n');
  sender.stdin!.write(`go ${port}\n`);
  const r = await result;
  sender.kill();
  c.kill();
  return r;
}

const results: Result[] = [];
for (const k of cases) results.push(await runCase(k));
const base = results.find((r) => r.case === 'baseline');
const bytes = (r: Result) => r.events * 200;
console.log(`socket(tcp) pipelines, ${mib} MiB of 200-byte lines, ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`);
console.log('| case | events/s | MiB/s | peak RSS MiB | share of baseline |');
console.log('|---|---:|---:|---:|---:|');
for (const r of results) {
  const mibs = bytes(r) / 1048576 / r.seconds;
  const ref = r.case.startsWith('regex') ? results.find((x) => x.case === 'regex-baseline') : r.case.startsWith('http') ? results.find((x) => x.case === 'http-baseline') : r.case === 'disk' ? (results.find((x) => x.case === 'blackhole') ?? base) : base;
  const share = ref ? `${((mibs / (bytes(ref) / 1048576 / ref.seconds)) * 100).toFixed(0)}% of ${ref.case}` : '-';
  console.log(`| ${r.case} | ${Math.round(r.events / r.seconds).toLocaleString('en-US')} | ${mibs.toFixed(1)} | ${r.rssMiB.toFixed(0)} | ${share} |`);
}
for (const r of results)
  if (r.encodedPerEvent !== undefined)
    console.log(`${r.case}: store bytes per event: ${r.encodedPerEvent.toFixed(1)} encoded, ${r.peakDiskPerEvent!.toFixed(1)} on disk at the peak, ${r.diskAfterPerEvent!.toFixed(1)} on disk after the run`);
