/**
 * Edge buffer throughput: memory vs disk (v2) vs disk_v1 on ~200-byte log lines.
 *
 *   npx tsx scripts/bench/disk-buffer.ts [events=200000]
 *
 * Each variant runs in its own process (clean peak RSS) in three phases: push everything while
 * the gate allows (writes complete), pull + settle everything (deletes complete), and a streaming
 * run where a reader drains while the producer pushes. Prints events/s, MiB/s of the bytes the
 * buffer counts, bytes per event (as `buffer_byte_size` counts them after the push phase: encoded
 * once written, the events' size until then; and on disk after the write phase) and peak RSS.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BufferConfig } from '../../lib/config/options/buffer.js';
import { type EventBatch, EventMetadata, LogEvent, batchSize, settleAll } from '../../lib/event.js';
import { waitOpen } from '../../lib/gate.js';
import { MetricsRegistry } from '../../lib/telemetry/registry.js';
import { componentContext } from '../../lib/component-context.js';
import { Timestamp } from '../../lib/value.js';
import { type EdgeBuffer, createBuffer } from '../../lib/buffer/index.js';

type Variant = 'memory' | 'disk' | 'disk_v1';
const CHUNK = 100;
const PULL = 1000;

function makeBatch(from: number): EventBatch {
  const out: EventBatch = new Array(CHUNK);
  for (let i = 0; i < CHUNK; i++) {
    const n = from + i;
    out[i] = new LogEvent(
      {
        message: `2024-05-01T10:00:00.${String(n % 1000).padStart(3, '0')}Z INFO request served method=GET path=/api/v1/items/${n} status=200 duration_ms=${n % 97} user_agent="curl/8.5.0"`,
        host: 'web-01.example.internal',
        timestamp: new Timestamp(1_714_557_600_000 + n, 0),
        source_type: 'demo_logs',
      },
      new EventMetadata('in', 'demo_logs'),
    );
  }
  return out;
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const f of readdirSync(dir, { recursive: true, withFileTypes: true })) if (f.isFile()) n += statSync(join(f.parentPath ?? f.path, f.name)).size;
  return n;
}

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

async function open(variant: Variant, dataDir: string, registry: MetricsRegistry): Promise<EdgeBuffer> {
  const config: BufferConfig =
    variant === 'memory'
      ? { type: 'memory', max_events: 1e9, when_full: 'block' }
      : { type: variant, max_events: 500, max_size: 4 * 1024 ** 3, when_full: 'block' };
  return createBuffer(config, componentContext({ id: 'bench', kind: 'sink', type: 'blackhole', registry, globals: { data_dir: dataDir } }));
}

/** Pushes freshly made chunks (the producer keeps no references, as a source would not). */
async function pushAll(buf: EdgeBuffer, events: number): Promise<void> {
  for (let i = 0; i < events; i += CHUNK) {
    buf.push(makeBatch(i));
    const w = waitOpen(buf.gate);
    if (w) await w;
    else await new Promise(setImmediate); // a source yields to the event loop between reads
  }
}

async function drain(buf: EdgeBuffer, n: number): Promise<void> {
  let got = 0;
  while (got < n) {
    const b = await buf.pull(PULL);
    if (!b) throw new Error(`buffer ended after ${got} events`);
    got += b.length;
    settleAll(b, 'delivered');
  }
}

/** Lets queued writes and deletes land before the clock stops. */
const settle = () => new Promise((r) => setTimeout(r, 0));

async function run(variant: Variant, events: number): Promise<Record<string, number>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'weir-bench-'));
  const registry = new MetricsRegistry({});
  const inputBytes = (batchSize(makeBatch(0)) * events) / CHUNK;
  try {
    // phase 1 + 2: fill, then drain
    let buf = await open(variant, dataDir, registry);
    let t0 = process.hrtime.bigint();
    await pushAll(buf, events);
    buf.close(); // flushes; pull below waits for the writes
    const counted = registry.sum('buffer_byte_size');
    const first = await buf.pull(1);
    const pushMs = ms(t0);
    settleAll(first ?? [], 'delivered');
    const onDisk = variant === 'memory' ? 0 : dirBytes(dataDir);
    t0 = process.hrtime.bigint();
    await drain(buf, events - 1);
    await buf.dispose();
    const pullMs = ms(t0);

    // phase 3: streaming, the reader keeps up with the producer
    rmSync(dataDir, { recursive: true, force: true });
    buf = await open(variant, dataDir, new MetricsRegistry({}));
    t0 = process.hrtime.bigint();
    await Promise.all([pushAll(buf, events), drain(buf, events)]);
    await buf.dispose();
    await settle();
    const streamMs = ms(t0);

    const mib = (bytes: number, t: number) => bytes / 1024 / 1024 / (t / 1000);
    return {
      pushEventsPerSec: Math.round(events / (pushMs / 1000)),
      pushMiBps: +mib(counted || inputBytes, pushMs).toFixed(1),
      pullEventsPerSec: Math.round(events / (pullMs / 1000)),
      streamEventsPerSec: Math.round(events / (streamMs / 1000)),
      streamMiBps: +mib(inputBytes, streamMs).toFixed(1),
      inputBytesPerEvent: +(inputBytes / events).toFixed(1),
      countedBytesPerEvent: +(counted / events).toFixed(1),
      onDiskBytesPerEvent: +(onDisk / events).toFixed(1),
      peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const [variantArg, eventsArg] = process.argv.slice(2);
if (variantArg === 'memory' || variantArg === 'disk' || variantArg === 'disk_v1') {
  const result = await run(variantArg, Number(eventsArg));
  process.stdout.write(JSON.stringify(result) + '\n');
} else {
  const events = Math.ceil(Number(variantArg ?? 200_000) / CHUNK) * CHUNK;
  const self = fileURLToPath(import.meta.url);
  const rows: Record<string, Record<string, number>> = {};
  for (const v of ['memory', 'disk', 'disk_v1'] as const) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', self, v, String(events)], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${v}: ${r.stderr}`);
    rows[v] = JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, number>;
  }
  process.stdout.write(`edge buffer, ${events} events of ~${rows.memory!.inputBytesPerEvent} bytes, chunks of ${CHUNK}, pulls of ${PULL}\n`);
  console.table(rows);
}
