/**
 * `socket -> kafka` and `kafka -> blackhole` against the repository's own test broker
 * (spec/peers/kafka-broker.ts, a single in-memory node written for the tests, not Apache Kafka),
 * each case in its own process so its peak RSS is its own, beside a bare-Node program doing the
 * same job with the same client (@platformatic/kafka): the ratio is what weir costs over the
 * client. The broker runs in a peer process; both sides share the machine's cores.
 * Usage: npx tsx scripts/bench/kafka-pipelines.ts [MiB=16]
 *   socket -> kafka: tcp-send writes 200-byte lines; the case ends once all are acknowledged; with
 *   one thread and with two (`weir-socket@2`, docs/threads.md).
 *   kafka -> blackhole: the topic is filled first; the case ends once every record was read.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { firstLine, freePort, lineSplitter, listening, peakRssMiB, script, socketPipeline, whenDone } from './harness.js';

const PARTITIONS = 4;

/** The broker: prints READY <address>; "count <topic>" prints COUNT <records>; "fill <topic> <n>" prints FILLED. */
async function runBroker(): Promise<void> {
  const { startKafkaBroker } = await import('../../spec/peers/kafka-broker.js');
  const broker = await startKafkaBroker({ autoCreateTopics: true });
  process.stdout.write(`READY ${broker.address}\n`);
  createInterface({ input: process.stdin }).on('line', (line) => {
    const [cmd, topic, n] = line.split(' ');
    if (cmd === 'create') {
      broker.createTopic(topic!, PARTITIONS);
      process.stdout.write('CREATED\n');
    } else if (cmd === 'count') {
      let total = 0;
      for (let p = 0; p < PARTITIONS; p++) total += broker.endOffset(topic!, p);
      process.stdout.write(`COUNT ${total}\n`);
    } else if (cmd === 'fill') void fill(broker.address, topic!, Number(n)).then(() => process.stdout.write('FILLED\n'));
  });
}

/** Writes `n` 200-byte records in batches of 1000 with the client (not measured). */
async function fill(address: string, topic: string, n: number): Promise<void> {
  const { Producer } = await import('@platformatic/kafka');
  const producer = new Producer({ clientId: 'fill', bootstrapBrokers: [address] });
  const value = Buffer.alloc(199, 'x');
  for (let i = 0; i < n; i += 1000) await producer.send({ messages: Array.from({ length: Math.min(1000, n - i) }, () => ({ topic, value })) });
  await producer.close();
}

/** Bare Node: TCP lines to records, batches of up to 10000 records or 5 ms, one send at a time (as the sink). */
async function bareSocketToKafka(address: string, topic: string, lines: number, sender: ReturnType<typeof spawn>): Promise<number> {
  const { createServer } = await import('node:net');
  const { Producer } = await import('@platformatic/kafka');
  const producer = new Producer({ clientId: 'bare', bootstrapBrokers: [address], acks: -1 });
  const port = await freePort();
  let pending: Buffer[] = [];
  let acked = 0;
  let sending = false;
  const flush = async () => {
    if (sending || pending.length === 0) return;
    sending = true;
    while (pending.length > 0) {
      const batch = pending.splice(0, 10_000);
      await producer.send({ messages: batch.map((value) => ({ topic, value })) });
      acked += batch.length;
    }
    sending = false;
  };
  const timer = setInterval(() => void flush(), 5);
  createServer((socket) => {
    socket.setEncoding('utf8');
    socket.on('data', lineSplitter((line) => pending.push(Buffer.from(line))));
  }).listen(port, '127.0.0.1');
  await listening(port);
  const t0 = performance.now();
  sender.stdin!.write(`go ${port}\n`);
  await whenDone(() => acked >= lines);
  clearInterval(timer);
  const seconds = (performance.now() - t0) / 1000;
  await producer.close();
  return seconds;
}

/** Bare Node: a group consumer reading every record. */
async function bareKafkaToNothing(address: string, topic: string, records: number): Promise<number> {
  const { Consumer } = await import('@platformatic/kafka');
  const consumer = new Consumer({ clientId: 'bare', groupId: `bare-${topic}`, bootstrapBrokers: [address], maxWaitTime: 100 });
  const t0 = performance.now();
  const stream = await consumer.consume({ topics: [topic], mode: 'earliest', autocommit: false });
  let read = 0;
  stream.on('data', () => void read++);
  await whenDone(() => read >= records);
  const seconds = (performance.now() - t0) / 1000;
  await stream.close();
  await consumer.close(true);
  return seconds;
}

/** weir: a `kafka -> blackhole` topology in this process. */
async function weirKafkaToBlackhole(address: string, topic: string, records: number): Promise<number> {
  const { catalog } = await import('../../connectors/index.js');
  const { configFromObject } = await import('../../lib/config/load.js');
  const { LogRoot } = await import('../../lib/log.js');
  const { Topology } = await import('../../lib/topology/topology.js');
  const config = configFromObject(
    {
      sources: { in: { type: 'kafka', bootstrap_servers: address, topics: [topic], group_id: `weir-${topic}`, auto_offset_reset: 'earliest' } },
      sinks: { out: { type: 'blackhole', inputs: ['in'], print_interval_secs: 0 } },
    },
    catalog,
  );
  const topo = new Topology({ log: new LogRoot('warn') });
  const t0 = performance.now();
  await topo.start(config);
  await whenDone(() => topo.registry.sum('component_received_events_total', { component_id: 'out' }) >= records);
  const seconds = (performance.now() - t0) / 1000;
  await topo.stop(5_000);
  return seconds;
}

/** One measured case in this process; prints RESULT <json>. */
async function runCase(kind: string, address: string, topic: string, count: number): Promise<void> {
  let seconds: number;
  if (kind.startsWith('weir-socket') || kind === 'bare-socket') {
    const sender = spawn(process.execPath, [...script('tcp-send'), String(count)], { stdio: ['pipe', 'pipe', 'inherit'] });
    process.on('exit', () => sender.kill());
    const lines = Number(await firstLine(sender, 'READY'));
    if (kind === 'bare-socket') seconds = await bareSocketToKafka(address, topic, lines, sender);
    else {
      const threads = Number(kind.split('@')[1] ?? 1);
      const pipe = await socketPipeline('kafka', { k: { type: 'kafka', bootstrap_servers: address, topic, encoding: { codec: 'text' } } }, threads);
      seconds = (await pipe.run(sender, 'k', lines)).seconds;
      await pipe.stop();
    }
    count = lines;
  } else seconds = kind === 'bare-consume' ? await bareKafkaToNothing(address, topic, count) : await weirKafkaToBlackhole(address, topic, count);
  process.stdout.write(`RESULT ${JSON.stringify({ kind, events: count, seconds: Number(seconds.toFixed(3)), events_per_sec: Math.round(count / seconds), peak_rss_mib: Math.round(peakRssMiB()) })}\n`);
  process.exit(0);
}

async function runBench(): Promise<void> {
  const mib = Number(process.argv[2] ?? 16);
  const broker = spawn(process.execPath, [...script('kafka-pipelines'), 'broker'], { stdio: ['pipe', 'pipe', 'inherit'] });
  process.on('exit', () => broker.kill());
  const address = await firstLine(broker, 'READY');
  const ask = async (line: string, answer: string) => {
    broker.stdin!.write(`${line}\n`);
    return firstLine(broker, answer);
  };
  interface Result {
    kind: string;
    events: number;
    seconds: number;
    events_per_sec: number;
    peak_rss_mib: number;
    stored?: number;
  }
  const one = async (kind: string, topic: string, count: number) => {
    const child = spawn(process.execPath, [...script('kafka-pipelines'), 'case', kind, address, topic, String(count)], { stdio: ['ignore', 'pipe', 'inherit'] });
    return JSON.parse(await firstLine(child, 'RESULT')) as Result;
  };
  const results: Result[] = [];
  for (const kind of ['bare-socket', 'weir-socket', 'weir-socket@2']) {
    const topic = `produce-${kind}`;
    await ask(`create ${topic}`, 'CREATED');
    const r = await one(kind, topic, mib);
    const stored = Number(await ask(`count ${topic}`, 'COUNT'));
    results.push({ ...r, stored });
  }
  const records = Math.floor((mib * 1024 * 1024) / 200);
  await ask('create consume', 'CREATED');
  await ask(`fill consume ${records}`, 'FILLED');
  for (const kind of ['bare-consume', 'weir-consume']) results.push(await one(kind, 'consume', records));
  const ratio = (a: string, b: string) => {
    const x = results.find((r) => r.kind === a)!;
    const y = results.find((r) => r.kind === b)!;
    return { throughput: Number((y.events_per_sec / x.events_per_sec).toFixed(2)), rss: Number((y.peak_rss_mib / x.peak_rss_mib).toFixed(2)) };
  };
  console.log(JSON.stringify({ bench: 'kafka-pipelines', broker: "the repository's own test broker (spec/peers/kafka-broker.ts), not Apache Kafka", mib, results, weir_over_bare: { 'socket -> kafka': ratio('bare-socket', 'weir-socket'), 'socket -> kafka, 2 threads': ratio('bare-socket', 'weir-socket@2'), 'kafka -> blackhole': ratio('bare-consume', 'weir-consume') }, node: process.version }, null, 1));
  broker.kill();
  process.exit(0);
}

if (process.argv[2] === 'broker') await runBroker();
else if (process.argv[2] === 'case') await runCase(process.argv[3]!, process.argv[4]!, process.argv[5]!, Number(process.argv[6]));
else await runBench();
