/**
 * `socket(tcp) -> nats` (JetStream publishing, each message stored before it counts) and
 * `nats (JetStream durable consumer) -> blackhole` (acknowledged after delivery), each against a
 * bare-Node program doing the same job with the same `nats` client in the same run. Every case runs
 * in its own process, so its peak RSS is its own; a nats-server with JetStream (file storage) runs
 * in another (spec/peers/nats-server.ts).
 * Prints one JSON line per case: events/s, peak RSS, and the weir case's share of its baseline's rate.
 * Usage: npx tsx scripts/bench/nats-pipelines.ts [MiB=32]   (200-byte lines; 32 MiB = 167,772 events)
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { firstLine, lineSplitter, peakRssMiB, script, socketPipeline, whenDone } from './harness.js';

/** Most JetStream publishes awaiting their acknowledgement in the baseline, as a weir batch holds at most 1,000. */
const BASELINE_IN_FLIGHT = 1000;
/** Messages per pull in the consuming baseline: the `nats` source's default `batch_config.batch`. */
const PULL_BATCH = 200;

type Kind = 'publish-baseline' | 'publish-weir' | 'consume-baseline' | 'consume-weir';

interface Result {
  case: Kind;
  events: number;
  seconds: number;
  rssMiB: number;
}

/** Starts tcp-send with `mib`; resolves with the process and its line count. */
async function sender(mib: number): Promise<{ child: ReturnType<typeof spawn>; lines: number }> {
  const child = spawn(process.execPath, [...script('tcp-send'), String(mib)], { stdio: ['pipe', 'pipe', 'inherit'] });
  process.on('exit', () => child.kill());
  return { child, lines: Number(await firstLine(child, 'READY')) };
}

/** Bare Node: read lines off the socket, publish each through JetStream, at most BASELINE_IN_FLIGHT awaiting the stream. */
async function publishBaseline(url: string, subject: string, mib: number): Promise<Result> {
  const { connect } = await import('nats');
  const nc = await connect({ servers: url });
  const js = nc.jetstream();
  const { child, lines } = await sender(mib);
  const enc = new TextEncoder();
  let acked = 0;
  let inFlight = 0;
  let t0 = 0;
  const server = createServer((sock) => {
    sock.setEncoding('latin1');
    const split = lineSplitter((line) => {
      inFlight++;
      js.publish(subject, enc.encode(line)).then(
        () => {
          acked++;
          if (--inFlight < BASELINE_IN_FLIGHT / 2 && sock.isPaused()) sock.resume();
        },
        (err: unknown) => {
          process.stderr.write(`publish failed: ${String(err)}\n`);
          process.exit(1);
        },
      );
    });
    sock.on('data', (chunk: string) => {
      split(chunk);
      if (inFlight >= BASELINE_IN_FLIGHT) sock.pause();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t0 = performance.now();
  child.stdin!.write(`go ${(server.address() as { port: number }).port}\n`);
  await whenDone(() => acked >= lines);
  const seconds = (performance.now() - t0) / 1000;
  await nc.close();
  return { case: 'publish-baseline', events: lines, seconds, rssMiB: Math.round(peakRssMiB()) };
}

/** weir: socket(tcp) -> nats sink with JetStream, text codec, the sink's defaults otherwise. */
async function publishWeir(url: string, subject: string, mib: number): Promise<Result> {
  const { child, lines } = await sender(mib);
  const pipe = await socketPipeline('nats', { out: { type: 'nats', url, subject, jetstream: true, encoding: { codec: 'text' } } });
  const { seconds, rssMiB } = await pipe.run(child, 'out', lines);
  if (pipe.sum('out', 'component_sent_events_total') !== lines) throw new Error(`sent ${pipe.sum('out', 'component_sent_events_total')} of ${lines}`);
  await pipe.stop();
  return { case: 'publish-weir', events: lines, seconds, rssMiB };
}

/** Bare Node: pull from the durable consumer in batches, one object per message, ack each. */
async function consumeBaseline(url: string, stream: string, consumer: string, lines: number): Promise<Result> {
  const { connect } = await import('nats');
  const nc = await connect({ servers: url });
  const c = await nc.jetstream().consumers.get(stream, consumer);
  const dec = new TextDecoder();
  const records: unknown[] = [];
  const t0 = performance.now();
  let n = 0;
  const messages = await c.consume({ max_messages: PULL_BATCH });
  for await (const m of messages) {
    records.push({ message: dec.decode(m.data), subject: m.subject, timestamp: new Date() });
    m.ack();
    if (records.length >= 1000) records.length = 0;
    if (++n >= lines) break;
  }
  const seconds = (performance.now() - t0) / 1000;
  await nc.close();
  return { case: 'consume-baseline', events: lines, seconds, rssMiB: Math.round(peakRssMiB()) };
}

/** weir: nats source (JetStream durable consumer, its defaults) -> blackhole with end-to-end acknowledgements. */
async function consumeWeir(url: string, stream: string, consumer: string, lines: number): Promise<Result> {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { catalog } = await import('../../connectors/index.js');
  const { configFromObject } = await import('../../lib/config/load.js');
  const { LogRoot } = await import('../../lib/log.js');
  const { Topology } = await import('../../lib/topology/topology.js');
  const dir = mkdtempSync(join(tmpdir(), 'weir-bench-nats-'));
  const config = configFromObject(
    {
      data_dir: dir,
      sources: { in: { type: 'nats', url, connection_name: 'bench', subject: `${stream}.>`, jetstream: { stream, consumer } } },
      sinks: { out: { type: 'blackhole', inputs: ['in'], print_interval_secs: 0, acknowledgements: { enabled: true } } },
    },
    catalog,
  );
  const topo = new Topology({ log: new LogRoot('warn') });
  const t0 = performance.now();
  await topo.start(config);
  await whenDone(() => topo.registry.sum('component_sent_events_total', { component_id: 'out' }) >= lines);
  const seconds = (performance.now() - t0) / 1000;
  const rssMiB = Math.round(peakRssMiB());
  await topo.stop(5_000);
  rmSync(dir, { recursive: true, force: true });
  return { case: 'consume-weir', events: lines, seconds, rssMiB };
}

/** One case in this process: prints its result as one JSON line. */
async function runCase(kind: Kind, args: string[]): Promise<void> {
  const [url = '', a = '', b = '', c = ''] = args;
  let r: Result;
  if (kind === 'publish-baseline') r = await publishBaseline(url, a, Number(b));
  else if (kind === 'publish-weir') r = await publishWeir(url, a, Number(b));
  else if (kind === 'consume-baseline') r = await consumeBaseline(url, a, b, Number(c));
  else r = await consumeWeir(url, a, b, Number(c));
  process.stdout.write(`RESULT ${JSON.stringify(r)}\n`);
  process.exit(0);
}

async function spawnCase(kind: Kind, args: (string | number)[]): Promise<Result> {
  const child = spawn(process.execPath, [...script('nats-pipelines'), 'case', kind, ...args.map(String)], { stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(await firstLine(child, 'RESULT')) as Result;
}

async function main(): Promise<void> {
  const mib = Number(process.argv[2] ?? 32);
  const { startNatsServer } = await import('../../spec/peers/nats-server.js');
  const { AckPolicy, connect } = await import('nats');
  const server = await startNatsServer('users');
  const nc = await connect({ servers: server.url });
  const jsm = await nc.jetstreamManager();
  const results: Result[] = [];
  const print = (r: Result, ref?: Result) => {
    const rate = r.events / r.seconds;
    const share = ref ? rate / (ref.events / ref.seconds) : undefined;
    console.log(JSON.stringify({ bench: 'nats-pipelines', ...r, seconds: Number(r.seconds.toFixed(2)), events_per_sec: Math.round(rate), ...(share ? { share_of_baseline: Number(share.toFixed(2)) } : {}) }));
  };
  try {
    for (const kind of ['publish-baseline', 'publish-weir'] as const) {
      const stream = kind === 'publish-weir' ? 'BENCH_W' : 'BENCH_B';
      await jsm.streams.add({ name: stream, subjects: [`${stream}.>`] });
      const r = await spawnCase(kind, [server.url, `${stream}.x`, mib]);
      const stored = (await jsm.streams.info(stream)).state.messages;
      if (stored !== r.events) throw new Error(`${kind}: the stream holds ${stored} of ${r.events} messages`);
      results.push(r);
      print(r, kind === 'publish-weir' ? results[0] : undefined);
    }
    // both consumers read the stream weir filled
    const lines = results[1]!.events;
    for (const kind of ['consume-baseline', 'consume-weir'] as const) {
      await jsm.consumers.add('BENCH_W', { durable_name: kind, ack_policy: AckPolicy.Explicit });
      const r = await spawnCase(kind, [server.url, 'BENCH_W', kind, lines]);
      const info = await jsm.consumers.info('BENCH_W', kind);
      if (info.num_ack_pending !== 0 || info.num_pending !== 0) throw new Error(`${kind}: ${info.num_ack_pending} unacknowledged, ${info.num_pending} not delivered`);
      results.push(r);
      print(r, kind === 'consume-weir' ? results[2] : undefined);
    }
  } finally {
    await nc.close();
    await server.stop();
  }
}

if (process.argv[2] === 'case') await runCase(process.argv[3] as Kind, process.argv.slice(4));
else await main();
