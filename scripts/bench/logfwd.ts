/**
 * Throughput of `logfwd -> blackhole` in one topology, fed by a Node generator of forward frames
 * in a child process (so this process's peak RSS is weir's):
 * `npx tsx scripts/bench/logfwd.ts [events] [mode] [record bytes]`, mode `forward` (default),
 * `packed`, `gzip` (CompressedPackedForward) or `message`; frames of 1,000 entries with EventTime
 * (Message mode: one event per frame). Prints one JSON line: events/s, MiB/s on the wire and
 * decoded, peak RSS.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { Packr } from 'msgpackr';
import { catalog } from '../../connectors/index.js';
import { configFromObject } from '../../lib/config/load.js';
import { LogRoot } from '../../lib/log.js';
import { Topology } from '../../lib/topology/topology.js';

// the generator child gets `generate` first, then the same arguments and the port
const isGenerator = process.argv[2] === 'generate';
const [eventsArg = '2000000', mode = 'forward', recordArg = '100', portArg = '0'] = process.argv.slice(isGenerator ? 3 : 2);
const events = Number(eventsArg);
const recordBytes = Number(recordArg);
const PER_FRAME = 1000;

/** EventTime (fixext 8, type 0) of now. */
function eventTime(): Buffer {
  const b = Buffer.alloc(10);
  const ms = Date.now();
  b[0] = 0xd7;
  b.writeUInt32BE(Math.floor(ms / 1000), 2);
  b.writeUInt32BE((ms % 1000) * 1_000_000, 6);
  return b;
}

/** The frames of the run: one template frame repeated (the generator must outrun the source). */
function frames(): { frame: Buffer; perFrame: number; plainBytes: number } {
  const packr = new Packr({ useRecords: false });
  const record = packr.pack({ message: 'x'.repeat(Math.max(1, recordBytes - 40)), level: 'info', service: 'bench' });
  const entry = Buffer.concat([Buffer.from([0x92]), eventTime(), record]);
  const tag = packr.pack('bench.logs');
  if (mode === 'message') {
    const frame = Buffer.concat([Buffer.from([0x93]), tag, eventTime(), record]);
    return { frame, perFrame: 1, plainBytes: frame.length };
  }
  const entries = Buffer.concat(Array.from({ length: PER_FRAME }, () => entry));
  if (mode === 'forward') {
    const head = Buffer.from([0xdc, PER_FRAME >> 8, PER_FRAME & 0xff]);
    const frame = Buffer.concat([Buffer.from([0x92]), tag, head, entries]);
    return { frame, perFrame: PER_FRAME, plainBytes: frame.length };
  }
  const blob = mode === 'gzip' ? gzipSync(entries) : entries;
  const option = mode === 'gzip' ? packr.pack({ compressed: 'gzip', size: PER_FRAME }) : packr.pack({ size: PER_FRAME });
  return { frame: Buffer.concat([Buffer.from([0x93]), tag, packr.pack(blob), option]), perFrame: PER_FRAME, plainBytes: entries.length };
}

async function generate(port: number): Promise<void> {
  const { frame, perFrame } = frames();
  const count = Math.ceil(events / perFrame);
  // several frames per write: fewer syscalls, as a forwarding daemon flushes its buffer
  const group = Math.max(1, Math.floor((256 * 1024) / frame.length));
  const block = Buffer.concat(Array.from({ length: group }, () => frame));
  const sock = connect(port, '127.0.0.1');
  await new Promise<void>((r) => sock.once('connect', () => r()));
  let sent = 0;
  const pump = () => {
    while (sent < count) {
      const n = Math.min(group, count - sent);
      sent += n;
      if (!sock.write(n === group ? block : block.subarray(0, n * frame.length))) return void sock.once('drain', pump);
    }
    sock.end();
    process.stdout.write(`${count * frame.length}\n`);
  };
  pump();
}

async function run(): Promise<void> {
  const config = configFromObject(
    { sources: { in: { type: 'logfwd', address: '127.0.0.1:0' } }, sinks: { out: { type: 'blackhole', inputs: ['in'], print_interval_secs: 0 } } },
    catalog,
  );
  let port = 0;
  const root = new LogRoot('info', {
    write: (l: string) => {
      const m = /Listening\. .*address=\S*:(\d+)/.exec(l);
      if (m) port = Number(m[1]);
    },
  });
  const topo = new Topology({ log: root });
  await topo.start(config);
  while (port === 0) await new Promise((r) => setTimeout(r, 5));
  const { frame, perFrame, plainBytes } = frames();
  const total = Math.ceil(events / perFrame) * perFrame;
  const wireBytes = Math.ceil(events / perFrame) * frame.length;
  const t0 = performance.now();
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), 'generate', eventsArg, mode, recordArg, String(port)], { stdio: ['ignore', 'ignore', 'inherit'] });
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      if (topo.registry.sum('component_sent_events_total', { component_id: 'out' }) >= total) {
        clearInterval(timer);
        resolve();
      }
    }, 2);
  });
  const secs = (performance.now() - t0) / 1000;
  child.kill();
  const result = {
    case: `logfwd(${mode}) -> blackhole`,
    events: total,
    record_bytes: recordBytes,
    seconds: Number(secs.toFixed(3)),
    events_per_sec: Math.round(total / secs),
    mib_per_sec: Number((wireBytes / 1024 / 1024 / secs).toFixed(1)),
    // msgpack entries decoded (differs from the wire only for gzip)
    decoded_mib_per_sec: Number(((Math.ceil(events / perFrame) * plainBytes) / 1024 / 1024 / secs).toFixed(1)),
    peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
    decode_errors: topo.registry.sum('decode_errors_total', { component_id: 'in' }),
  };
  process.stdout.write(JSON.stringify(result) + '\n');
  process.exit(0);
}

if (isGenerator) void generate(Number(portArg));
else void run();
