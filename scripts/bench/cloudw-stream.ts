/**
 * `socket(tcp) -> cloudw_stream` against kinesalite (the stream emulator, spec/peers/kinesis-front.ts),
 * each side in its own process: the sender writes 200-byte lines (tcp-send), the emulator stores
 * them, and this process runs weir alone, so its peak RSS is weir's. Prints events/s, MiB/s,
 * PutRecords calls, bytes on the wire, peak RSS and the records the stream holds (read back with
 * GetRecords; must equal the lines sent).
 * With target `null` a minimal responder answers every PutRecords call with success instead, so
 * the figures are weir's own (kinesalite serialises the calls to a stream behind one lock).
 * Usage: node dist/scripts/bench/cloudw-stream.js [MiB=16] [compression=none|gzip] [shards=4] [concurrency=adaptive] [target=kinesalite|null]
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { firstLine, script, socketPipeline } from './harness.js';

/** A responder that takes every PutRecords call whole and counts the records. */
async function runNullPeer(): Promise<void> {
  const { createServer: createHttpServer } = await import('node:http');
  let stored = 0;
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { Records?: unknown[]; StreamName?: string };
      const n = body.Records?.length ?? 0;
      stored += n;
      const answer = body.Records
        ? { FailedRecordCount: 0, Records: Array.from({ length: n }, (_, i) => ({ SequenceNumber: String(stored - n + i), ShardId: 'shardId-000000000000' })) }
        : { StreamDescription: { StreamName: body.StreamName } };
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  process.stdout.write(`READY http://127.0.0.1:${(server.address() as { port: number }).port}\n`);
  createInterface({ input: process.stdin }).on('line', () => {
    const cpu = process.cpuUsage();
    process.stdout.write(`STORED ${stored} ${((cpu.user + cpu.system) / 1e6).toFixed(1)}\n`);
  });
}

/** The emulator in its own process: prints READY <url>, answers "count" with STORED <records> <CPU seconds so far>. */
async function runPeer(shards: number): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const { startKinesalite } = await import('../../spec/peers/kinesis-front.js');
  const kinesis = await startKinesalite();
  await kinesis.createStream('bench', shards);
  process.stdout.write(`READY ${kinesis.url}\n`);
  createInterface({ input: process.stdin }).on('line', () => {
    const cpu = process.cpuUsage();
    void kinesis.readAll('bench').then((records) => process.stdout.write(`STORED ${records.length} ${((cpu.user + cpu.system) / 1e6).toFixed(1)}\n`));
  });
}

async function runBench(): Promise<void> {
  const mib = Number(process.argv[2] ?? 16);
  const compression = process.argv[3] ?? 'none';
  const shards = Number(process.argv[4] ?? 4);
  const target = process.argv[6] ?? 'kinesalite';
  const concurrency = process.argv[5] === undefined || process.argv[5] === 'adaptive' || process.argv[5] === 'none' ? (process.argv[5] ?? 'adaptive') : Number(process.argv[5]);

  const peer = spawn(process.execPath, [...script('cloudw-stream'), target === 'null' ? 'null-peer' : 'peer', String(shards)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const sender = spawn(process.execPath, [...script('tcp-send'), String(mib)], { stdio: ['pipe', 'pipe', 'inherit'] });
  process.on('exit', () => {
    sender.kill();
    peer.kill();
  });
  const [url, lineCount] = await Promise.all([firstLine(peer, 'READY'), firstLine(sender, 'READY')]);
  const lines = Number(lineCount);

  const pipe = await socketPipeline('cloudw-stream', {
    stream: {
      type: 'cloudw_stream',
      stream_name: 'bench',
      endpoint: url,
      auth: { access_key_id: 'bench', secret_access_key: 'bench' },
      encoding: { codec: 'json' },
      compression,
      request: { concurrency },
    },
  });
  const cpu0 = process.cpuUsage();
  const { seconds, rssMiB } = await pipe.run(sender, 'stream', lines);
  const sum = (metric: string) => pipe.sum('stream', metric);
  peer.stdin!.write('count\n');
  const weirCpu = process.cpuUsage(cpu0);
  const [stored, peerCpu] = (await firstLine(peer, 'STORED')).split(' ').map(Number) as [number, number];
  console.log(
    JSON.stringify({
      bench: 'cloudw-stream',
      mib,
      compression,
      shards,
      concurrency,
      target,
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
      // where the time went: the emulator is a JavaScript store, often the slower side
      weir_cpu_secs: Number(((weirCpu.user + weirCpu.system) / 1e6).toFixed(1)),
      events_per_weir_cpu_sec: Math.round(lines / ((weirCpu.user + weirCpu.system) / 1e6)),
      emulator_cpu_secs: peerCpu,
      node: process.version,
    }),
  );
  await pipe.stop();
  process.exit(stored === lines ? 0 : 1);
}

if (process.argv[2] === 'peer') await runPeer(Number(process.argv[3] ?? 4));
else if (process.argv[2] === 'null-peer') await runNullPeer();
else await runBench();
