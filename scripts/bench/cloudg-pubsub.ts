/**
 * `socket(tcp) -> cloudg_pubsub` against the Pub/Sub emulator, each side in its own process: the
 * sender writes 200-byte lines (tcp-send), the emulator (a JVM, driven from a peer process that
 * creates the topic and a subscription) stores them, and this process runs weir alone, so its
 * peak RSS is weir's. Prints events/s, MiB/s, publish requests, bytes on the wire, peak RSS and
 * the messages the subscription holds (pulled back at the end; must equal the lines sent).
 * Usage: npx tsx scripts/bench/cloudg-pubsub.ts [MiB=16] [codec=json|text] [concurrency=adaptive]
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { firstLine, script, socketPipeline } from './harness.js';

/** The emulator's side: prints READY <url>; on "count" pulls and acks everything, prints STORED <messages>. */
async function runPeer(): Promise<void> {
  const { startPubsubEmulator, PROJECT } = await import('../../spec/peers/pubsub-emulator.js');
  const emu = await startPubsubEmulator();
  const base = `${emu.url}/v1/projects/${PROJECT}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  await call('PUT', '/topics/bench');
  await call('PUT', '/subscriptions/bench-sub', { topic: `projects/${PROJECT}/topics/bench`, ackDeadlineSeconds: 600 });
  process.on('exit', () => void emu.close());
  process.stdout.write(`READY ${emu.url}\n`);
  createInterface({ input: process.stdin }).on('line', () => {
    void (async () => {
      let stored = 0;
      for (let empty = 0; empty < 2; ) {
        const r = (await call('POST', '/subscriptions/bench-sub:pull', { maxMessages: 1000 })) as { receivedMessages?: { ackId: string }[] };
        const got = r.receivedMessages ?? [];
        if (got.length === 0) {
          empty++;
          continue;
        }
        stored += got.length;
        await call('POST', '/subscriptions/bench-sub:acknowledge', { ackIds: got.map((m) => m.ackId) });
      }
      process.stdout.write(`STORED ${stored}\n`);
      await emu.close();
      process.exit(0);
    })();
  });
}

async function runBench(): Promise<void> {
  const mib = Number(process.argv[2] ?? 16);
  const codec = process.argv[3] ?? 'json';
  const concurrency = process.argv[4] === undefined || process.argv[4] === 'adaptive' || process.argv[4] === 'none' ? (process.argv[4] ?? 'adaptive') : Number(process.argv[4]);

  const peer = spawn(process.execPath, [...script('cloudg-pubsub'), 'peer'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const sender = spawn(process.execPath, [...script('tcp-send'), String(mib)], { stdio: ['pipe', 'pipe', 'inherit'] });
  process.on('exit', () => {
    sender.kill();
    peer.kill();
  });
  const [url, lineCount] = await Promise.all([firstLine(peer, 'READY'), firstLine(sender, 'READY')]);
  const lines = Number(lineCount);

  const pipe = await socketPipeline('cloudg-pubsub', {
    topic: {
      type: 'cloudg_pubsub',
      project: 'weir-test',
      topic: 'bench',
      endpoint: url,
      // the emulator checks no credentials; an API key keeps the token path out of the measure
      api_key: 'bench',
      encoding: { codec },
      request: { concurrency },
    },
  });
  const { seconds, rssMiB } = await pipe.run(sender, 'topic', lines);
  const sum = (metric: string) => pipe.sum('topic', metric);
  const weirCpu = process.cpuUsage();
  peer.stdin!.write('count\n');
  const stored = Number(await firstLine(peer, 'STORED'));
  console.log(
    JSON.stringify({
      bench: 'cloudg-pubsub',
      mib,
      codec,
      concurrency,
      events: lines,
      seconds: Number(seconds.toFixed(3)),
      events_per_sec: Math.round(lines / seconds),
      mib_per_sec: Number((mib / seconds).toFixed(1)),
      sent: sum('component_sent_events_total'),
      discarded: sum('component_discarded_events_total'),
      request_errors: sum('component_errors_total'),
      wire_mib: Number((sum('component_sent_bytes_total') / 1048576).toFixed(1)),
      stored,
      peak_rss_mib: rssMiB,
      weir_cpu_secs: Number(((weirCpu.user + weirCpu.system) / 1e6).toFixed(1)),
      node: process.version,
    }),
  );
  await pipe.stop();
  process.exit(stored === lines ? 0 : 1);
}

if (process.argv[2] === 'peer') await runPeer();
else await runBench();
