/**
 * `socket(tcp) -> labelstore` against the strict label-store peer (spec/peers/loki.ts), each side
 * in its own process: the sender writes 200-byte lines (tcp-send), the peer decodes and checks
 * every push (as a store before 2.4, which refuses out-of-order entries, unless the action is
 * `accept`), and this process runs weir alone, so its peak RSS is weir's. Prints events/s, MiB/s,
 * requests, bytes on the wire, peak RSS and the entries the store kept (must equal the lines sent).
 * Usage: node dist/scripts/bench/labelstore.js [MiB=128] [compression=snappy|gzip|none] [out_of_order_action=drop] [concurrency=none]
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { firstLine, script, socketPipeline } from './harness.js';

/** The store in its own process: prints READY <url>, answers "count" with STORED <entries> <pushes>. */
async function runPeer(): Promise<void> {
  const { startLoki } = await import('../../spec/peers/loki.js');
  // `accept` needs a store that takes entries in any order (2.4 and newer)
  const loki = await startLoki({ rejectOutOfOrder: process.argv[3] !== 'accept' });
  let stored = 0;
  let pushes = 0;
  // the peer keeps every entry and request for tests; a benchmark only needs the counts
  const collect = () => {
    stored += loki.entries.length;
    loki.entries.length = 0;
    pushes += loki.requests.filter((r) => r.method === 'POST').length;
    loki.requests.length = 0;
  };
  setInterval(collect, 100);
  process.stdout.write(`READY ${loki.url}\n`);
  createInterface({ input: process.stdin }).on('line', () => {
    collect();
    process.stdout.write(`STORED ${stored} ${pushes}\n`);
  });
}

async function runBench(): Promise<void> {
  const mib = Number(process.argv[2] ?? 128);
  const compression = process.argv[3] ?? 'snappy';
  const action = process.argv[4] ?? 'drop';
  const concurrency = process.argv[5] === undefined || process.argv[5] === 'none' || process.argv[5] === 'adaptive' ? (process.argv[5] ?? 'none') : Number(process.argv[5]);
  const peer = spawn(process.execPath, [...script('labelstore'), 'peer', action], { stdio: ['pipe', 'pipe', 'inherit'] });
  const sender = spawn(process.execPath, [...script('tcp-send'), String(mib)], { stdio: ['pipe', 'pipe', 'inherit'] });
  process.on('exit', () => {
    sender.kill();
    peer.kill();
  });
  const [url, lineCount] = await Promise.all([firstLine(peer, 'READY'), firstLine(sender, 'READY')]);
  const lines = Number(lineCount);

  const pipe = await socketPipeline('labelstore', {
    store: {
      type: 'labelstore',
      endpoint: url,
      encoding: { codec: 'text' },
      labels: { job: 'bench', source: '{{ source_type }}' },
      compression,
      out_of_order_action: action,
      request: { concurrency },
    },
  });
  const { seconds, rssMiB } = await pipe.run(sender, 'store', lines);
  const sum = (name: string) => pipe.sum('store', name);
  peer.stdin!.write('count\n');
  const [stored, pushes] = (await firstLine(peer, 'STORED')).split(' ').map(Number) as [number, number];
  console.log(
    JSON.stringify({
      bench: 'labelstore',
      mib,
      compression,
      out_of_order_action: action,
      concurrency,
      events: lines,
      seconds: Number(seconds.toFixed(3)),
      events_per_sec: Math.round(lines / seconds),
      mib_per_sec: Number((mib / seconds).toFixed(1)),
      requests: pushes,
      sent: sum('component_sent_events_total'),
      discarded: sum('component_discarded_events_total'),
      request_errors: sum('component_errors_total'),
      wire_mib: Number((sum('component_sent_bytes_total') / 1048576).toFixed(1)),
      stored,
      peak_rss_mib: rssMiB,
      node: process.version,
    }),
  );
  await pipe.stop();
  process.exit(stored === lines ? 0 : 1);
}

if (process.argv[2] === 'peer') await runPeer();
else await runBench();
