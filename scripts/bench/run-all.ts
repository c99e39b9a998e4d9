/**
 * Runs the benchmarks one after another, each in its own process, at sizes that finish in a few
 * minutes in all (the figures in docs/performance.md use larger runs).
 *
 *   npm run bench                                   every benchmark at its size below
 *   npm run bench -- remap tcp-pipelines 512 http    only these; words after a name are its arguments
 *
 * The http-sink and http-baseline scripts are left out: tcp-pipelines runs the same http cases
 * end to end, against the same consumer.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Bench {
  readonly name: string;
  /** Arguments when none are given: sizes for a run of a few seconds to a minute. */
  readonly args: readonly string[];
  readonly nodeArgs?: readonly string[];
}

const BENCHES: readonly Bench[] = [
  { name: 'tcp-pipelines', args: ['64'] }, // MiB of 200-byte lines, all five cases
  { name: 'socket-source', args: ['64'] }, // MiB
  { name: 'file-pipelines', args: ['32'] }, // MiB file: file -> socket(tcp) and file -> http, pre-written and appended, against bare Node
  { name: 'tokenizer', args: [] },
  { name: 'reduce', args: [] },
  { name: 'throttle', args: [] },
  { name: 'aggregate', args: [] }, // 1,000,000 incremental counters of 1,000 series, with a bare-Node Map baseline
  { name: 'remap', args: ['100000'], nodeArgs: ['--expose-gc'] }, // events per pass; collects between passes
  { name: 'disk-buffer', args: [] },
  { name: 'labelstore', args: ['64'] }, // MiB of 200-byte lines into the strict label-store peer
  { name: 'otlp', args: ['500', '500', '4'] }, // OTLP/HTTP protobuf requests, records each, in flight
  { name: 'logfwd', args: ['500000'] }, // events in Forward frames of 1,000
  { name: 'vector-pipelines', args: ['64'] }, // MiB of 200-byte lines: agent -> aggregator over the vector protocol, against bare Node
  { name: 'api-tap', args: ['32', '3'] }, // MiB per round, rounds: socket -> blackhole without and with a tap
  { name: 'tsdb-metrics', args: [] },
  { name: 'cloudw-stream', args: ['16'] }, // MiB into kinesalite
  { name: 'cloudw-object-storage', args: ['32'] }, // MiB into s3rver
  { name: 'cloudg-pubsub', args: ['8'] }, // MiB into the Pub/Sub emulator
  { name: 'nats-pipelines', args: ['8'] }, // MiB through JetStream: socket -> nats and nats -> blackhole, against bare Node
];

const here = dirname(fileURLToPath(import.meta.url));
// compiled (dist/scripts/bench/*.js) runs compiled benchmarks; the .ts source runs them through tsx
const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
const loader = ext === 'ts' ? ['--import', 'tsx'] : [];

/** Splits argv into the benchmarks to run, each with the words that follow its name. */
function plan(argv: readonly string[]): Bench[] {
  if (argv.length === 0) return [...BENCHES];
  const picked: { bench: Bench; args: string[] }[] = [];
  for (const word of argv) {
    const bench = BENCHES.find((b) => b.name === word);
    if (bench) picked.push({ bench, args: [] });
    else if (picked.length > 0) picked[picked.length - 1]!.args.push(word);
    else {
      console.error(`unknown benchmark "${word}"; known: ${BENCHES.map((b) => b.name).join(', ')}`);
      process.exit(2);
    }
  }
  // a name alone runs at the size above, not at the benchmark's own (larger) default
  return picked.map(({ bench, args }) => (args.length > 0 ? { ...bench, args } : bench));
}

const failed: string[] = [];
for (const b of plan(process.argv.slice(2))) {
  const argv = [...(b.nodeArgs ?? []), ...loader, join(here, `${b.name}.${ext}`), ...b.args];
  console.log(`\n## ${b.name} ${b.args.join(' ')}`.trimEnd());
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, argv, { stdio: 'inherit' });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(`(${b.name}: ${seconds.toFixed(1)} s${r.status === 0 ? '' : `, exit ${r.status ?? r.signal}`})`);
  if (r.status !== 0) failed.push(b.name);
}
if (failed.length > 0) {
  console.error(`failed: ${failed.join(', ')}`);
  process.exitCode = 1;
}
