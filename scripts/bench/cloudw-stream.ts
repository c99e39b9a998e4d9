/**
 * `socket(tcp) -> cloudw_stream` against kinesalite (the stream emulator, spec/peers/kinesis-front.ts),
 * each side in its own process: the sender writes 200-byte lines (tcp-send), the emulator stores
 * them, and this process runs weir alone, so its peak RSS is weir's. Prints events/s, MiB/s,
 * PutRecords calls, bytes on the wire, peak RSS and the records the stream holds (read back with
 * GetRecords; must equal the lines sent).
 * Usage: node dist/scripts/bench/cloudw-stream.js [MiB=16] [compression=none|gzip] [shards=4] [concurrency=adaptive]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const ts = import.meta.url.endsWith('.ts');
const script = (name: string) => (ts ? ['--import', 'tsx', join(here, `${name}.ts`)] : [join(here, `${name}.js`)]);

function firstLine(child: ReturnType<typeof spawn>, prefix: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (l) => {
      if (l.startsWith(prefix)) {
        rl.close();
        resolve(l.slice(prefix.length).trim());
      }
    });
    child.on('exit', (code) => reject(new Error(`${prefix} never came (exit ${code})`)));
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

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** Resolves once something accepts connections on the port (the source listens asynchronously). */
async function listening(port: number): Promise<void> {
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function runBench(): Promise<void> {
  const mib = Number(process.argv[2] ?? 16);
  const compression = process.argv[3] ?? 'none';
  const shards = Number(process.argv[4] ?? 4);
  const concurrency = process.argv[5] === undefined || process.argv[5] === 'adaptive' || process.argv[5] === 'none' ? (process.argv[5] ?? 'adaptive') : Number(process.argv[5]);
  const { catalog } = await import('../../connectors/index.js');
  const { configFromObject } = await import('../../lib/config/load.js');
  const { LogRoot } = await import('../../lib/log.js');
  const { Topology } = await import('../../lib/topology/topology.js');

  const peer = spawn(process.execPath, [...script('cloudw-stream'), 'peer', String(shards)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const sender = spawn(process.execPath, [...script('tcp-send'), String(mib)], { stdio: ['pipe', 'pipe', 'inherit'] });
  process.on('exit', () => {
    sender.kill();
    peer.kill();
  });
  const [url, lineCount] = await Promise.all([firstLine(peer, 'READY'), firstLine(sender, 'READY')]);
  const lines = Number(lineCount);

  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'weir-bench-cloudw-stream-'));
  const config = configFromObject(
    {
      data_dir: dir,
      sources: { in: { type: 'socket', mode: 'tcp', address: `127.0.0.1:${port}` } },
      sinks: {
        stream: {
          type: 'cloudw_stream',
          inputs: ['in'],
          stream_name: 'bench',
          endpoint: url,
          auth: { access_key_id: 'bench', secret_access_key: 'bench' },
          encoding: { codec: 'json' },
          compression,
          request: { concurrency },
        },
      },
    },
    catalog,
  );
  const topo = new Topology({ log: new LogRoot('warn') });
  await topo.start(config);
  await listening(port);

  const t0 = performance.now();
  sender.stdin!.write(`go ${port}\n`);
  const sum = (name: string, tags: Record<string, string> = {}) => topo.registry.sum(name, { component_id: 'stream', ...tags });
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      if (sum('component_sent_events_total') + sum('component_discarded_events_total') >= lines) {
        clearInterval(timer);
        resolve();
      }
    }, 5);
  });
  const seconds = (performance.now() - t0) / 1000;
  const rssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
  peer.stdin!.write('count\n');
  const weirCpu = process.cpuUsage();
  const [stored, peerCpu] = (await firstLine(peer, 'STORED')).split(' ').map(Number) as [number, number];
  console.log(
    JSON.stringify({
      bench: 'cloudw-stream',
      mib,
      compression,
      shards,
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
      // where the time went: the emulator is a JavaScript store, often the slower side
      weir_cpu_secs: Number(((weirCpu.user + weirCpu.system) / 1e6).toFixed(1)),
      emulator_cpu_secs: peerCpu,
      node: process.version,
    }),
  );
  await topo.stop(5_000);
  rmSync(dir, { recursive: true, force: true });
  process.exit(stored === lines ? 0 : 1);
}

if (process.argv[2] === 'peer') await runPeer(Number(process.argv[3] ?? 4));
else await runBench();
