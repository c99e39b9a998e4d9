import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import type { BufferConfig } from '../../../lib/config/options/buffer.js';
import { BatchNotifier, type DeliveryStatus, type Event, type EventBatch, EventMetadata, LogEvent, MetricEvent, batchSize, knownBatchSize, settleAll } from '../../../lib/event.js';
import { LogRoot } from '../../../lib/log.js';
import { ComponentTelemetry, MetricsRegistry } from '../../../lib/telemetry/registry.js';
import { componentContext } from '../../../lib/component-context.js';
import { Float, Timestamp } from '../../../lib/value.js';
import { type BufferContext, BufferMetrics, type EdgeBuffer, createBuffer, diskBufferPath } from '../../../lib/buffer/index.js';
import { DiskBuffer, keySeq, seqKey } from '../../../lib/buffer/disk.js';
import { until } from '../../helpers/wait.js';

type DiskType = 'disk' | 'disk_v1';

interface Harness {
  dataDir: string;
  registry: MetricsRegistry;
  logs: string[];
  open(type: DiskType, opts?: Partial<BufferConfig>): Promise<EdgeBuffer>;
  metric(name: string, tags?: Record<string, string>): number;
}

function harness(): Harness {
  const dataDir = mkdtempSync(join(tmpdir(), 'weir-disk-'));
  const registry = new MetricsRegistry({});
  const logs: string[] = [];
  const log = new LogRoot('info', { write: (l) => logs.push(l) }, 0).logger();
  const ctx = (): BufferContext => componentContext({ id: 'out', kind: 'sink', type: 'test_collect', registry, log, globals: { data_dir: dataDir } });
  return {
    dataDir,
    registry,
    logs,
    open: (type, opts = {}) => createBuffer({ type, max_events: 500, max_size: 1 << 30, when_full: 'block', ...opts }, ctx()),
    metric: (name, tags = {}) => registry.sum(name, { component_id: 'out', ...tags }),
  };
}


const line = (i: number, extra = ''): LogEvent =>
  new LogEvent({ message: `line ${i}${extra}`, n: i, f: new Float(i), ts: new Timestamp(1_700_000_000_000 + i, 7) }, new EventMetadata('in', 'demo_logs'));
const lines = (from: number, n: number, extra = ''): EventBatch => Array.from({ length: n }, (_, i) => line(from + i, extra));
const numbers = (events: readonly Event[]): number[] => events.map((e) => (e as LogEvent).fields.n as number);

/** Pulls until `n` events arrived, settling each batch with `status` (or not at all). */
async function pullN(buf: EdgeBuffer, n: number, status?: DeliveryStatus, max = 7): Promise<Event[]> {
  const out: Event[] = [];
  while (out.length < n) {
    const b = await buf.pull(Math.min(max, n - out.length));
    if (!b) throw new Error(`buffer ended after ${out.length} of ${n} events`);
    out.push(...b);
    if (status) settleAll(b, status);
  }
  return out;
}

/** Resolves with the next pull result, or 'pending' if nothing arrives within `ms`. */
const pullSoon = (buf: EdgeBuffer, max: number, ms = 50) =>
  Promise.race([buf.pull(max), new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms))]);

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

for (const type of ['disk', 'disk_v1'] as const) {
  describe(`DiskBuffer (${type})`, () => {
    let h: Harness;
    beforeEach(() => {
      h = harness();
      dirs.push(h.dataDir);
    });

    it(`stores under <data_dir>/buffer/v${type === 'disk' ? 2 : 1}/<sink id>`, async () => {
      const buf = await h.open(type);
      buf.push(lines(0, 3));
      await buf.dispose();
      const dir = diskBufferPath(h.dataDir, type === 'disk' ? 2 : 1, 'out');
      expect(dir).to.equal(join(h.dataDir, 'buffer', type === 'disk' ? 'v2' : 'v1', 'out'));
      const db = new ClassicLevel<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
      const keys = await db.keys().all();
      await db.close();
      const records = keys.filter((k) => k.length === 8);
      expect(records.length).to.equal(type === 'disk' ? 1 : 3); // v2 packs a push into one record
      expect(records[0]).to.deep.equal(seqKey(0));
    });

    it('reads back in write order across restarts, losslessly', async () => {
      let buf = await h.open(type);
      buf.push(lines(0, 5));
      buf.push(lines(5, 1));
      const metric = new MetricEvent('hits', 'incremental', { type: 'counter', value: 2.5 }, new EventMetadata('m', 'internal_metrics'), 'ns', {
        a: 'b',
        multi: ['x', null],
      });
      buf.push([metric]);
      await buf.dispose();
      buf = await h.open(type);
      expect(buf.length).to.equal(7);
      buf.push(lines(7, 3)); // appended after what the previous run left
      const got = await pullN(buf, 10, 'delivered');
      expect(got.map((e) => (e.type === 'log' ? e.fields.n : e.name))).to.deep.equal([0, 1, 2, 3, 4, 5, 'hits', 7, 8, 9]);
      const first = got[0] as LogEvent;
      expect(first.fields.f).to.be.instanceOf(Float);
      expect((first.fields.ts as Timestamp).ns).to.equal(7);
      expect(first.meta.sourceId).to.equal('in');
      expect(first.meta.sourceType).to.equal('demo_logs');
      const m = got[6] as MetricEvent;
      expect(m.toJSON()).to.deep.equal(metric.toJSON());
      expect(m.meta.sourceType).to.equal('internal_metrics');
      await buf.dispose();
    });

    it('deletes events only after they settle; unsettled ones replay after a reopen', async () => {
      let buf = await h.open(type);
      buf.push(lines(0, 10));
      const handed = await pullN(buf, 10); // handed to the sink, never settled
      expect(numbers(handed)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(buf.length).to.equal(0);
      expect(h.metric('buffer_events')).to.equal(10); // still on disk
      await buf.dispose();

      buf = await h.open(type);
      expect(h.metric('buffer_events')).to.equal(10);
      const again = await pullN(buf, 10);
      expect(numbers(again)).to.deep.equal(numbers(handed));
      settleAll(again.slice(0, 4), 'delivered');
      settleAll(again.slice(4, 6), 'rejected'); // the sink is done with them too
      await buf.dispose();

      buf = await h.open(type);
      // v1 deletes per event; v2 deletes a record once all its events settled
      const left = type === 'disk' ? [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] : [6, 7, 8, 9];
      expect(buf.length).to.equal(left.length);
      const third = await pullN(buf, left.length, 'delivered');
      expect(numbers(third)).to.deep.equal(left);
      await buf.dispose();

      buf = await h.open(type);
      expect(buf.length).to.equal(0);
      expect(h.metric('buffer_events')).to.equal(0);
      expect(h.metric('buffer_byte_size')).to.equal(0);
      expect(await pullSoon(buf, 10)).to.equal('pending');
      await buf.dispose();
    });

    it("a pulled batch carries its events' size: the pushes' own for whole records, counted otherwise", async () => {
      const buf = await h.open(type);
      // a waiting reader: each push is sealed as a record of its own and taken from memory
      let pulled = buf.pull(100);
      buf.push(lines(0, 3), 1234); // a size that is not the real one shows where the figure came from
      let got = (await pulled)!;
      expect(got).to.have.length(3);
      // disk_v1 holds one event per record: a batch of three is split, and its size counted again
      expect(knownBatchSize(got)).to.equal(type === 'disk' ? 1234 : batchSize(got));
      settleAll(got, 'delivered');

      pulled = buf.pull(100);
      buf.push(lines(3, 2)); // no size said: counted
      got = (await pulled)!;
      expect(knownBatchSize(got)).to.equal(batchSize(got));
      settleAll(got, 'delivered');

      // part of a record: counted
      buf.push(lines(5, 4), 999);
      got = (await buf.pull(2))!;
      expect(got).to.have.length(2);
      expect(knownBatchSize(got)).to.equal(batchSize(got));
      settleAll(got, 'delivered');
      settleAll((await buf.pull(100))!, 'delivered');
      await buf.dispose();
    });

    it('counts received, sent and held events and bytes; gauges restart from disk', async () => {
      let buf = await h.open(type);
      buf.push(lines(0, 4));
      const bytes = h.metric('buffer_byte_size');
      expect(bytes).to.be.greaterThan(4 * 20);
      expect(h.metric('buffer_received_events_total')).to.equal(4);
      expect(h.metric('buffer_received_event_bytes_total')).to.equal(bytes);
      expect(h.metric('buffer_events')).to.equal(4);
      const got = await pullN(buf, 4, undefined, 4);
      expect(h.metric('buffer_sent_events_total')).to.equal(4);
      expect(h.metric('buffer_sent_event_bytes_total')).to.equal(bytes);
      settleAll(got.slice(0, 4), 'delivered');
      expect(h.metric('buffer_events')).to.equal(0);
      expect(h.metric('buffer_byte_size')).to.equal(0);
      const more = lines(4, 3);
      buf.push(more);
      // not encoded until its write begins: counted by the events' size until then
      expect(h.metric('buffer_byte_size')).to.equal(batchSize(more));
      await until(() => h.metric('buffer_byte_size') !== batchSize(more), 2000, 'the write');
      const held = h.metric('buffer_byte_size'); // the encoded size, which the restart counts
      await buf.dispose();

      const h2 = { ...h, registry: new MetricsRegistry({}) };
      const reg = new MetricsRegistry({});
      buf = await createBuffer(
        { type, max_events: 500, max_size: 1 << 30, when_full: 'block' },
        componentContext({ id: 'out', kind: 'sink', type: 't', registry: reg, log: new LogRoot('error', { write() {} }).logger(), globals: { data_dir: h2.dataDir } }),
      );
      expect(reg.sum('buffer_events')).to.equal(3);
      expect(reg.sum('buffer_byte_size')).to.equal(held);
      expect(buf.length).to.equal(3);
      await buf.dispose();
    });

    it('pull waits for data, release() wakes it empty, close() drains then ends', async () => {
      const buf = await h.open(type);
      const waiting = buf.pull(10);
      buf.push(lines(0, 2));
      expect(numbers((await waiting)!)).to.deep.equal([0, 1]);
      const idle = buf.pull(10);
      buf.release();
      expect(await idle).to.equal(undefined);
      buf.push(lines(2, 3));
      buf.close();
      expect(numbers(await pullN(buf, 3, 'delivered', 10))).to.deep.equal([2, 3, 4]);
      expect(await buf.pull(10)).to.equal(undefined);
      await buf.dispose();
    });

    it('block: closes the gate at max_size and reopens as the sink drains', async () => {
      const buf = await h.open(type, { max_size: 2000 });
      let n = 0;
      while (buf.gate.isOpen) {
        buf.push([line(n++, 'x'.repeat(60))]);
        expect(n).to.be.below(100);
      }
      expect(h.metric('buffer_byte_size')).to.be.at.least(2000);
      expect(h.metric('buffer_discarded_events_total')).to.equal(0);
      buf.push([line(n++)]); // an in-flight chunk still lands under block
      expect(buf.length).to.equal(n);
      const first = await pullN(buf, 5);
      expect(buf.gate.isOpen, 'pulled but unsettled events still fill the disk').to.equal(false);
      settleAll(first, 'delivered');
      const rest = await pullN(buf, n - 5, 'delivered');
      expect(numbers([...first, ...rest])).to.deep.equal(Array.from({ length: n }, (_, i) => i));
      expect(buf.gate.isOpen).to.equal(true);
      expect(h.metric('buffer_byte_size')).to.equal(0);
      await buf.dispose();
    });

    it('block: a buffer reopened full starts with its gate closed', async () => {
      let buf = await h.open(type, { max_size: 1000 });
      while (buf.gate.isOpen) buf.push([line(0, 'y'.repeat(80))]);
      await buf.dispose();
      buf = await h.open(type, { max_size: 1000 });
      expect(buf.gate.isOpen).to.equal(false);
      settleAll(await pullN(buf, buf.length), 'delivered');
      expect(buf.gate.isOpen).to.equal(true);
      await buf.dispose();
    });

    it('drop_newest: drops what does not fit, counts it, settles it errored, never closes the gate', async () => {
      const buf = await h.open(type, { max_size: 1500, when_full: 'drop_newest' });
      const statuses: DeliveryStatus[] = [];
      const notifier = new BatchNotifier((s) => statuses.push(s));
      const batch = lines(0, 60, 'z'.repeat(40));
      notifier.retain(batch.length);
      for (const e of batch) e.meta.notifiers = [notifier];
      buf.push(batch);
      expect(buf.gate.isOpen).to.equal(true);
      const kept = buf.length;
      expect(kept).to.be.greaterThan(0).and.below(60);
      expect(h.metric('buffer_discarded_events_total')).to.equal(60 - kept);
      expect(h.metric('buffer_byte_size')).to.be.at.most(1500);
      expect(h.metric('buffer_received_events_total')).to.equal(kept);
      buf.push(lines(100, 5, 'z'.repeat(40)));
      expect(h.metric('buffer_discarded_events_total')).to.equal(65 - kept);
      await until(() => statuses.length > 0, 2000, 'the acknowledgement'); // the kept ones are written and synced
      expect(statuses).to.deep.equal(['errored']); // worst status of the batch
      const got = await pullN(buf, kept, 'delivered', 100);
      expect(numbers(got)).to.deep.equal(Array.from({ length: kept }, (_, i) => i)); // the oldest stay
      buf.push(lines(200, 2)); // room again
      expect(numbers(await pullN(buf, 2, 'delivered'))).to.deep.equal([200, 201]);
      await buf.dispose();
    });

    it('acknowledges the source once the events are synced to disk, not on push', async () => {
      const buf = await h.open(type);
      const statuses: DeliveryStatus[] = [];
      const notifier = new BatchNotifier((s) => statuses.push(s));
      const batch = lines(0, 3);
      notifier.retain(3);
      for (const e of batch) e.meta.notifiers = [notifier];
      buf.push(batch);
      expect(statuses).to.deep.equal([]);
      expect(batch.every((e) => e.meta.notifiers === undefined)).to.equal(true);
      await until(() => statuses.length > 0, 400, 'the acknowledgement'); // before the 500 ms timer: synced at once
      expect(statuses).to.deep.equal(['delivered']);
      const got = await pullN(buf, 3);
      expect(got.every((e) => e.meta.notifiers?.length === 1 && e.meta.notifiers[0] !== notifier)).to.equal(true);
      settleAll(got, 'rejected');
      expect(statuses).to.deep.equal(['delivered']);
      await buf.dispose();
    });

    it('keeps FIFO order while a reader and a producer interleave past the in-memory tail', async function () {
      this.timeout(20_000);
      const total = type === 'disk' ? 40_000 : 8_000; // disk: ~8 MiB, many times the tail
      let buf = await h.open(type);
      const got: Event[] = [];
      const pending: Event[][] = [];
      const reader = (async () => {
        while (got.length < total) {
          const b = (await buf.pull(333))!;
          got.push(...b);
          pending.push(b);
          if (pending.length > 3) settleAll(pending.splice(1, 1)[0]!, 'delivered'); // out of order
        }
      })();
      for (let i = 0; i < total; i += 250) {
        buf.push(lines(i, 250, 'p'.repeat(150)));
        if (i % 5000 === 0) await new Promise((r) => setImmediate(r)); // bursts bigger than the tail
      }
      await reader;
      expect(numbers(got)).to.deep.equal(Array.from({ length: total }, (_, i) => i));
      for (const b of pending) settleAll(b, 'delivered');
      await buf.dispose();
      buf = await h.open(type);
      expect(buf.length).to.equal(0);
      await buf.dispose();
    });

    it('rejects an event it cannot encode and keeps the rest of the chunk', async () => {
      const buf = await h.open(type);
      const cyclic: Record<string, unknown> = { a: 1 };
      cyclic.self = cyclic;
      const bad = new LogEvent({ message: 'bad', n: 99, c: cyclic as never }, new EventMetadata('in', 'demo_logs'));
      const statuses: DeliveryStatus[] = [];
      const notifier = new BatchNotifier((s) => statuses.push(s));
      notifier.retain(1);
      bad.meta.notifiers = [notifier];
      buf.push([line(0), bad, line(1)]);
      expect(statuses).to.deep.equal(['rejected']);
      expect(h.metric('component_errors_total', { error_type: 'write_failed' })).to.equal(1);
      expect(numbers(await pullN(buf, 2, 'delivered'))).to.deep.equal([0, 1]);
      await buf.dispose();
    });

    it('skips a damaged record, counts and logs it with its position, and keeps working', async () => {
      let buf!: EdgeBuffer;
      for (const from of [0, 2, 4]) {
        buf = await h.open(type); // one run per push: one v2 record each
        buf.push(lines(from, 2));
        await buf.dispose();
      }

      const dir = diskBufferPath(h.dataDir, type === 'disk' ? 2 : 1, 'out');
      const db = new ClassicLevel<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
      const victim = type === 'disk' ? seqKey(1) : seqKey(2); // the record holding event 2
      const value = (await db.get(victim))!;
      const bad = Buffer.from(value);
      bad[Math.floor(bad.length / 2)]! ^= 0x5a;
      if (type === 'disk_v1') bad[0] = 0x21; // JSON has no checksum: break its syntax
      await db.put(victim, bad);
      await db.close();

      buf = await h.open(type);
      const got = await pullN(buf, type === 'disk' ? 4 : 5, 'delivered');
      expect(numbers(got)).to.deep.equal(type === 'disk' ? [0, 1, 4, 5] : [0, 1, 3, 4, 5]);
      expect(h.metric('component_errors_total', { error_type: 'decode_failed', stage: 'receiving' })).to.equal(1);
      const entry = h.logs.find((l) => l.includes('damaged'));
      expect(entry).to.match(/ERROR/).and.match(/seq=(1|2)\b/).and.include(dir);
      expect(buf.length).to.equal(0);
      buf.push(lines(6, 1));
      expect(numbers(await pullN(buf, 1, 'delivered'))).to.deep.equal([6]);
      await buf.dispose();

      buf = await h.open(type); // the damaged record was removed, not met again
      expect(buf.length).to.equal(0);
      expect(h.metric('buffer_events')).to.equal(0);
      await buf.dispose();
      expect(h.metric('component_errors_total', { error_type: 'decode_failed', stage: 'receiving' })).to.equal(1);
    });
  });
}

describe('sequence keys', () => {
  it('sort bytewise in numeric order and round-trip up to 2^53 - 1', () => {
    const seqs = [0, 1, 255, 256, 65_535, 65_536, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 7, Number.MAX_SAFE_INTEGER];
    for (let i = 0; i < seqs.length; i++) {
      expect(keySeq(seqKey(seqs[i]!))).to.equal(seqs[i]);
      expect(seqKey(seqs[i]!)).to.have.length(8);
      if (i > 0) expect(Buffer.compare(seqKey(seqs[i - 1]!), seqKey(seqs[i]!))).to.equal(-1);
    }
  });

  it('a restart reads hundreds of records back in order (disk_v1: one record per event)', async () => {
    const h = harness();
    dirs.push(h.dataDir);
    let buf = await h.open('disk_v1');
    for (let i = 0; i < 600; i += 3) buf.push(lines(i, 3));
    await buf.dispose();
    buf = await h.open('disk_v1');
    expect(numbers(await pullN(buf, 600, 'delivered', 64))).to.deep.equal(Array.from({ length: 600 }, (_, i) => i));
    await buf.dispose();
  });
});

describe('DiskBuffer sync', () => {
  it('coalesces pushes into one unsynced batch, then syncs within the sync interval', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'weir-disk-'));
    dirs.push(dataDir);
    const t = new ComponentTelemetry(new MetricsRegistry({}), 'out', 'sink', 't');
    const calls: { ops: number; sync: boolean }[] = [];
    const proto = ClassicLevel.prototype as unknown as { batch: (...a: unknown[]) => unknown };
    const original = proto.batch;
    proto.batch = function (this: unknown, ...args: unknown[]) {
      if (Array.isArray(args[0])) calls.push({ ops: args[0].length, sync: (args[1] as { sync?: boolean } | undefined)?.sync === true });
      return original.apply(this, args);
    };
    try {
      const buf = await DiskBuffer.open({
        dir: join(dataDir, 'store'),
        sinkId: 'out',
        maxSize: 1 << 30,
        whenFull: 'block',
        metrics: new BufferMetrics(t),
        decodeErrors: t.counter('component_errors_total'),
        writeErrors: t.counter('component_errors_total'),
        log: new LogRoot('error', { write() {} }).logger(),
        syncIntervalMs: 40,
      });
      for (let i = 0; i < 5; i++) buf.push(lines(i * 10, 10)); // one tick: one record, one batch
      await new Promise((r) => setTimeout(r, 5));
      expect(calls).to.deep.equal([{ ops: 1, sync: false }]);
      await until(() => calls.length >= 2, 2000, 'a sync write');
      expect(calls[1]).to.deep.equal({ ops: 1, sync: true }); // the marker write carries the fsync
      const n = calls.length;
      await new Promise((r) => setTimeout(r, 100));
      expect(calls.length, 'no sync writes while nothing changed').to.equal(n);
      await buf.dispose();
    } finally {
      proto.batch = original;
    }
  });
});

describe('createBuffer', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
    dirs.push(h.dataDir);
  });

  it('builds a memory buffer for type memory', async () => {
    const buf = await h.open('memory' as DiskType, { max_events: 2 });
    expect(buf).to.not.be.instanceOf(DiskBuffer);
    buf.push(lines(0, 2));
    expect(buf.gate.isOpen).to.equal(false);
    await buf.dispose();
  });

  it('fails at start-up naming the path and the sink when data_dir cannot be written', async () => {
    const file = join(h.dataDir, 'not-a-dir');
    writeFileSync(file, 'x');
    const err = await createBuffer(
      { type: 'disk', max_events: 500, max_size: 1 << 30, when_full: 'block' },
      componentContext({ id: 'my_sink', kind: 'sink', type: 't', registry: h.registry, log: new LogRoot('error', { write() {} }).logger(), globals: { data_dir: file } }),
    ).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err).to.be.instanceOf(Error);
    expect(err!.message).to.include('"my_sink"').and.include(join(file, 'buffer', 'v2', 'my_sink'));
  });

  it('fails naming the path when another buffer holds the store', async () => {
    const a = await h.open('disk');
    const err = await h.open('disk').then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).to.include('"out"').and.include(join(h.dataDir, 'buffer', 'v2', 'out'));
    await a.dispose();
  });

  it('keeps sink ids that are not path-safe inside the buffer directory', () => {
    expect(diskBufferPath('/d', 2, '../x/y')).to.equal(join('/d', 'buffer', 'v2', '..%2Fx%2Fy'));
    expect(diskBufferPath('/d', 1, '..')).to.equal(join('/d', 'buffer', 'v1', '%2E%2E'));
  });
});


