/**
 * `socket(tcp) -> cloudw_object_storage` against s3rver, each side in its own process: the sender
 * writes 200-byte lines (tcp-send), s3rver stores the objects on disk, and this process runs weir
 * alone, so its peak RSS is weir's. The clock stops when the topology has stopped, so the last
 * open batch (batch.timeout_secs is 300 s) is written at shutdown and counted. Prints events/s,
 * MiB/s, objects, bytes on the wire, peak RSS and the lines read back from the bucket (must equal
 * the lines sent), and CPU seconds (user + system, all threads) per GiB of lines.
 * `threads` is the Topology's thread count (docs/threads.md); `regex` puts
 * `remap(parse_regex)` over Apache common log lines before the sink (tcp-pipelines' regex case).
 * Usage: node dist/scripts/bench/cloudw-object-storage.js [MiB=128] [compression=gzip|none] [batch_max_bytes=10000000] [concurrency=adaptive] [threads=1] [regex]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { gunzipSync } from 'node:zlib';
import { COMMON_LOG } from './corpus.js';
import { firstLine, freePort, listening, script } from './harness.js';

const BUCKET = 'bench';

/** s3rver in its own process: prints READY <url>, answers "count" with STORED <lines> <objects>. */
async function runPeer(): Promise<void> {
  const { startS3, S3RVER_CREDENTIALS } = await import('../../spec/peers/s3.js');
  const { GetObjectCommand, ListObjectsV2Command, S3Client } = await import('@aws-sdk/client-s3');
  const { NodeHttpHandler } = await import('@smithy/node-http-handler');
  const s3 = await startS3([BUCKET]);
  const client = new S3Client({ endpoint: s3.url, region: 'us-east-1', forcePathStyle: true, credentials: { ...S3RVER_CREDENTIALS }, requestHandler: new NodeHttpHandler() });
  process.stdout.write(`READY ${s3.url}\n`);
  createInterface({ input: process.stdin }).on('line', async () => {
    let lines = 0;
    let objects = 0;
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, ContinuationToken: token }));
      for (const o of page.Contents ?? []) {
        const got = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: o.Key! }));
        const raw = Buffer.from(await got.Body!.transformToByteArray());
        const body = got.ContentEncoding === 'gzip' ? gunzipSync(raw) : raw;
        // text bodies: one line per event, newline between events only
        if (body.length > 0) {
          let newlines = 0;
          for (let i = body.indexOf(10); i !== -1; i = body.indexOf(10, i + 1)) newlines++;
          lines += newlines + 1;
        }
        objects++;
      }
      token = page.NextContinuationToken;
    } while (token);
    process.stdout.write(`STORED ${lines} ${objects}\n`);
    client.destroy();
    await s3.close();
    process.exit(0);
  });
}

async function runBench(): Promise<void> {
  const mib = Number(process.argv[2] ?? 128);
  const compression = process.argv[3] ?? 'gzip';
  const maxBytes = Number(process.argv[4] ?? 10_000_000);
  const concurrency = process.argv[5] === undefined || process.argv[5] === 'none' || process.argv[5] === 'adaptive' ? (process.argv[5] ?? 'adaptive') : Number(process.argv[5]);
  const threads = Number(process.argv[6] ?? 1);
  const regex = process.argv[7] === 'regex';
  const { catalog, pipelineWorkerEntry } = await import('../../connectors/index.js');
  const { sizeYoungGeneration } = await import('../../bin/startup/young-generation.js');
  const { configFromObject } = await import('../../lib/config/load.js');
  const { LogRoot } = await import('../../lib/log.js');
  const { Topology } = await import('../../lib/topology/topology.js');

  const peer = spawn(process.execPath, [...script('cloudw-object-storage'), 'peer'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const sender = spawn(process.execPath, [...script('tcp-send'), String(mib), regex ? 'apache' : 'syslog'], { stdio: ['pipe', 'pipe', 'inherit'] });
  process.on('exit', () => {
    sender.kill();
    peer.kill();
  });
  const [url, lineCount] = await Promise.all([firstLine(peer, 'READY'), firstLine(sender, 'READY')]);
  const lines = Number(lineCount);

  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'weir-bench-s3-'));
  const config = configFromObject(
    {
      data_dir: dir,
      sources: { in: { type: 'socket', mode: 'tcp', address: `127.0.0.1:${port}` } },
      ...(regex ? { transforms: { parse: { type: 'remap', inputs: ['in'], source: `. |= parse_regex!(.message, r'${COMMON_LOG}')` } } } : {}),
      sinks: {
        archive: {
          type: 'cloudw_object_storage',
          inputs: [regex ? 'parse' : 'in'],
          bucket: BUCKET,
          endpoint: url,
          region: 'us-east-1',
          auth: { access_key_id: 'S3RVER', secret_access_key: 'S3RVER' },
          encoding: { codec: 'text' },
          compression,
          batch: { max_bytes: maxBytes },
          request: { concurrency },
          healthcheck: { enabled: false },
        },
      },
    },
    catalog,
  );
  const topo = new Topology({ log: new LogRoot('warn'), threads, workerEntry: pipelineWorkerEntry });
  await topo.start(config);
  // as bin/cli/run.ts: the main thread's young generation follows what runs in workers
  sizeYoungGeneration(topo.threadedSegments);
  await listening(port);

  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  sender.stdin!.write(`go ${port}\n`);
  const sum = (id: string, name: string, tags: Record<string, string> = {}) => topo.registry.sum(name, { component_id: id, ...tags });
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      if (sum('in', 'component_received_events_total') >= lines) {
        clearInterval(timer);
        resolve();
      }
    }, 5);
  });
  const receivedAt = (performance.now() - t0) / 1000;
  // the source has everything: stopping writes the open batches and waits for them
  const sent = () => sum('archive', 'component_sent_events_total');
  const wire = () => sum('archive', 'component_sent_bytes_total');
  const errors = () => sum('archive', 'component_errors_total');
  let result = { sent: 0, wire: 0, errors: 0 };
  const probe = setInterval(() => (result = { sent: sent(), wire: wire(), errors: errors() }), 5);
  await topo.stop(60_000);
  clearInterval(probe);
  result = { sent: Math.max(result.sent, sent()), wire: Math.max(result.wire, wire()), errors: Math.max(result.errors, errors()) };
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const rssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
  peer.stdin!.write('count\n');
  const [stored, objects] = (await firstLine(peer, 'STORED')).split(' ').map(Number) as [number, number];
  console.log(
    JSON.stringify({
      bench: 'cloudw-object-storage',
      mib,
      compression,
      batch_max_bytes: maxBytes,
      concurrency,
      threads,
      regex,
      events: lines,
      seconds: Number(seconds.toFixed(3)),
      received_seconds: Number(receivedAt.toFixed(3)),
      events_per_sec: Math.round(lines / seconds),
      mib_per_sec: Number((mib / seconds).toFixed(1)),
      cpu_s_per_gib: Number(((cpu.user + cpu.system) / 1e6 / (mib / 1024)).toFixed(2)),
      objects,
      sent: result.sent,
      request_errors: result.errors,
      wire_mib: Number((result.wire / 1048576).toFixed(1)),
      stored,
      peak_rss_mib: rssMiB,
      node: process.version,
    }),
  );
  rmSync(dir, { recursive: true, force: true });
  process.exit(stored === lines ? 0 : 1);
}

if (process.argv[2] === 'peer') await runPeer();
else await runBench();
