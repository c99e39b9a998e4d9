/**
 * A disk buffer whose reader is ahead of the disk: records the sink settled before their write
 * began are never written, records still held (or carrying source acknowledgements) are, and a
 * waiting reader takes records sealed during a write from memory without waiting for it.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { BatchNotifier, type DeliveryStatus, type Event, type EventBatch, EventMetadata, LogEvent, batchSize, settleAll } from '../../../lib/event.js';
import { LogRoot } from '../../../lib/log.js';
import { ComponentTelemetry, MetricsRegistry } from '../../../lib/telemetry/registry.js';
import { BufferMetrics } from '../../../lib/buffer/index.js';
import { DEFER_BYTES, DiskBuffer, TAIL_BYTES, type RecordFormat, diskV2Format, keySeq } from '../../../lib/buffer/disk.js';
import { diskV1Format } from '../../../lib/buffer/disk-v1.js';
import { until } from '../../helpers/wait.js';

interface Call {
  puts: number[];
  dels: number[];
  sync: boolean;
}

/** Wraps ClassicLevel's batch(): records each call's sequence keys and holds it until released. */
function interceptBatches() {
  const calls: Call[] = [];
  let hold: Promise<void> | undefined;
  let release = () => {};
  const proto = ClassicLevel.prototype as unknown as { batch: (...a: unknown[]) => unknown };
  const original = proto.batch;
  proto.batch = function (this: unknown, ...args: unknown[]) {
    if (!Array.isArray(args[0])) return original.apply(this, args);
    const ops = args[0] as { type: string; key: Buffer }[];
    const seqs = (t: string) => ops.filter((o) => o.type === t && o.key.length === 8).map((o) => keySeq(o.key));
    calls.push({ puts: seqs('put'), dels: seqs('del'), sync: (args[1] as { sync?: boolean } | undefined)?.sync === true });
    const h = hold;
    return h ? h.then(() => original.apply(this, args)) : original.apply(this, args);
  };
  return {
    calls,
    /** The next batch() calls wait until release(). */
    holdWrites() {
      hold = new Promise<void>((r) => (release = r));
    },
    release() {
      hold = undefined;
      release();
    },
    restore() {
      proto.batch = original;
    },
  };
}

const lines = (from: number, n: number): EventBatch =>
  Array.from({ length: n }, (_, i) => new LogEvent({ message: `line ${from + i} ${'x'.repeat(100)}`, n: from + i }, new EventMetadata('in', 'demo_logs')));
const numbers = (events: readonly Event[]): number[] => events.map((e) => (e as LogEvent).fields.n as number);

async function pullN(buf: DiskBuffer, n: number): Promise<Event[]> {
  const out: Event[] = [];
  while (out.length < n) {
    const b = await buf.pull(n - out.length);
    if (!b) throw new Error(`buffer ended after ${out.length} of ${n} events`);
    out.push(...b);
  }
  return out;
}

for (const [name, format] of [
  ['disk', diskV2Format],
  ['disk_v1', diskV1Format],
] as [string, RecordFormat][]) {
  describe(`DiskBuffer (${name}) with a reader ahead of the disk`, () => {
    let dataDir: string;
    let registry: MetricsRegistry;
    let io: ReturnType<typeof interceptBatches>;
    const metric = (m: string) => registry.sum(m, { component_id: 'out' });
    const open = () => {
      const t = new ComponentTelemetry(registry, 'out', 'sink', 't');
      return DiskBuffer.open({
        dir: join(dataDir, 'store'),
        sinkId: 'out',
        maxSize: 1 << 30,
        whenFull: 'block',
        metrics: new BufferMetrics(t),
        decodeErrors: t.counter('component_errors_total'),
        writeErrors: t.counter('component_errors_total'),
        log: new LogRoot('error', { write() {} }).logger(),
        format,
      });
    };

    beforeEach(() => {
      dataDir = mkdtempSync(join(tmpdir(), 'weir-disk-skip-'));
      registry = new MetricsRegistry({});
      io = interceptBatches();
    });
    afterEach(() => {
      io.release();
      io.restore();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('never writes a record its sink settled before the write began, and writes those still held', async () => {
      const buf = await open();
      io.holdWrites();
      buf.push(lines(0, 5)); // its write starts and is held
      await until(() => io.calls.length === 1, 2000, 'the first write');
      const first = io.calls[0]!.puts;
      const got = await pullN(buf, 5);
      const waiting = pullN(buf, 5);
      buf.push(lines(5, 5)); // sealed while the first write is out
      got.push(...(await waiting));
      expect(numbers(got)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      settleAll(got, 'delivered'); // the first records' deletes queue; the later ones need no write at all
      buf.push(lines(10, 3)); // held by nobody: must reach the disk
      io.release();
      await until(() => metric('buffer_events') === 3, 2000, 'the settled events to leave the counters');
      expect(metric('buffer_received_events_total')).to.equal(13);
      await buf.dispose();

      const puts = io.calls.flatMap((c) => c.puts);
      const dels = io.calls.flatMap((c) => c.dels);
      const skipped = name === 'disk' ? [1] : [5, 6, 7, 8, 9];
      const kept = name === 'disk' ? [2] : [10, 11, 12];
      expect(first).to.deep.equal(name === 'disk' ? [0] : [0, 1, 2, 3, 4]);
      expect(puts).to.deep.equal([...first, ...kept]);
      expect(dels).to.deep.equal(first); // written first, so deleted; the skipped ones left no trace
      for (const s of skipped) expect(puts).not.to.include(s);

      io.restore();
      const again = await open();
      expect(again.length).to.equal(3);
      const replay = await pullN(again, 3);
      expect(numbers(replay)).to.deep.equal([10, 11, 12]);
      settleAll(replay, 'delivered');
      await again.dispose();
    });

    it('writes records handed out but not settled, so they replay after a restart', async () => {
      const buf = await open();
      io.holdWrites();
      buf.push(lines(0, 4));
      await until(() => io.calls.length === 1, 2000, 'the first write');
      const got = await pullN(buf, 4);
      const waiting = pullN(buf, 4);
      buf.push(lines(4, 4));
      got.push(...(await waiting));
      settleAll(got.slice(0, 4), 'delivered'); // the second record stays with the sink, unsettled
      io.release();
      await buf.dispose();
      io.restore();
      const again = await open();
      const replay = await pullN(again, again.length);
      expect(numbers(replay)).to.deep.equal([4, 5, 6, 7]);
      settleAll(replay, 'delivered');
      await again.dispose();
    });

    it('writes and syncs a record that carries source acknowledgements even when its sink settled it first', async () => {
      const buf = await open();
      io.holdWrites();
      buf.push(lines(0, 2));
      await until(() => io.calls.length === 1, 2000, 'the first write');
      const statuses: DeliveryStatus[] = [];
      const notifier = new BatchNotifier((s) => statuses.push(s));
      const acked = lines(2, 2);
      notifier.retain(2);
      for (const e of acked) e.meta.notifiers = [notifier];
      const got = await pullN(buf, 2);
      const waiting = pullN(buf, 2);
      buf.push(acked);
      got.push(...(await waiting));
      settleAll(got, 'delivered');
      expect(statuses, 'not acknowledged before a synced write holds it').to.deep.equal([]);
      io.release();
      await until(() => statuses.length > 0, 2000, 'the acknowledgement');
      expect(statuses).to.deep.equal(['delivered']);
      const ackedPuts = io.calls.slice(1).filter((c) => c.puts.length > 0);
      expect(ackedPuts.length).to.equal(1);
      expect(ackedPuts[0]!.sync).to.equal(true);
      await buf.dispose();
    });

    it('hands a waiting reader what is pushed during a write without waiting for it', async () => {
      const buf = await open();
      io.holdWrites();
      buf.push(lines(0, 1));
      await until(() => io.calls.length === 1, 2000, 'the first write');
      expect(numbers(await pullN(buf, 1))).to.deep.equal([0]);
      const waiting = buf.pull(10);
      buf.push(lines(1, 3));
      const got = await waiting;
      expect(io.calls.length, 'no write completed meanwhile').to.equal(1);
      expect(numbers(got!)).to.deep.equal([1, 2, 3]);
      settleAll(got!, 'delivered');
      io.release();
      await buf.dispose();
    });

    it('keeps records of a full write batch unwritten until their sink settles them or a write takes them', async () => {
      const buf = await open();
      io.holdWrites();
      buf.push(lines(0, 1));
      await until(() => io.calls.length === 1, 2000, 'the first write');
      const n = format.maxEvents === 1 ? 50 : 3 * format.maxEvents;
      buf.push(lines(1, n)); // no reader: sealed records wait for the write
      const got = await pullN(buf, n + 1);
      expect(numbers(got)).to.deep.equal(Array.from({ length: n + 1 }, (_, i) => i));
      settleAll(got.slice(1), 'delivered');
      expect(metric('buffer_events')).to.equal(1);
      io.release();
      await buf.dispose();
      expect(io.calls.flatMap((c) => c.puts)).to.deep.equal([0]);
      io.restore();
      const again = await open();
      expect(again.length).to.equal(1);
      settleAll(await pullN(again, 1), 'delivered');
      await again.dispose();
    });
  });
}

/** The v2 format, counting the events its builders encode. */
function countingFormat(): { format: RecordFormat; encoded: () => number } {
  let n = 0;
  const format: RecordFormat = {
    ...diskV2Format,
    createBuilder() {
      const b = diskV2Format.createBuilder();
      const append = b.append.bind(b);
      b.append = (e) => {
        append(e);
        n++;
      };
      return b;
    },
  };
  return { format, encoded: () => n };
}

describe('DiskBuffer encoding records when their write begins', () => {
  let dataDir: string;
  let t: ComponentTelemetry;
  let logs: string[];
  const open = (format: RecordFormat, whenFull: 'block' | 'drop_newest' = 'block') =>
    DiskBuffer.open({
      dir: join(dataDir, 'store'),
      sinkId: 'out',
      maxSize: 1 << 30,
      whenFull,
      metrics: new BufferMetrics(t),
      decodeErrors: t.counter('component_errors_total', { error_type: 'decode_failed' }),
      writeErrors: t.counter('component_errors_total', { error_type: 'write_failed' }),
      log: new LogRoot('error', { write: (l) => logs.push(l) }).logger(),
      format,
    });
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'weir-disk-defer-'));
    t = new ComponentTelemetry(new MetricsRegistry({}), 'out', 'sink', 't');
    logs = [];
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('never encodes what its sink settled before the write began; encodes the rest when written', async () => {
    const { format, encoded } = countingFormat();
    const buf = await open(format);
    const waiting = pullN(buf, 5);
    buf.push(lines(0, 5)); // taken by the waiting reader at once
    settleAll(await waiting, 'delivered');
    expect(encoded()).to.equal(0);
    buf.push(lines(5, 3)); // nobody takes these: encoded by their write
    expect(encoded(), 'not at push').to.equal(0);
    await until(() => encoded() === 3, 2000, 'the write');
    await buf.dispose();
    const again = await open(format);
    const back = await pullN(again, 3);
    expect(numbers(back)).to.deep.equal([5, 6, 7]);
    expect((back[1] as LogEvent).fields.message).to.equal(`line 6 ${'x'.repeat(100)}`);
    settleAll(back, 'delivered');
    await again.dispose();
  });

  it('encodes at push what carries source acknowledgements, and what a drop_newest buffer takes', async () => {
    const { format, encoded } = countingFormat();
    const buf = await open(format);
    const notifier = new BatchNotifier(() => {});
    const acked = lines(0, 2);
    notifier.retain(2);
    for (const e of acked) e.meta.notifiers = [notifier];
    buf.push(acked);
    expect(encoded()).to.equal(2);
    settleAll(await pullN(buf, 2), 'delivered');
    await buf.dispose();

    const counting = countingFormat();
    const dropping = await open(counting.format, 'drop_newest');
    dropping.push(lines(0, 4));
    expect(counting.encoded()).to.equal(4);
    settleAll(await pullN(dropping, 4), 'delivered');
    await dropping.dispose();
  });

  it('encodes at push once DEFER_BYTES of records wait unencoded behind a slow disk', async () => {
    const io = interceptBatches();
    try {
      const { format, encoded } = countingFormat();
      const buf = await open(format);
      io.holdWrites();
      buf.push(lines(0, 1));
      await until(() => io.calls.length === 1, 2000, 'the first write');
      let n = 1;
      while (encoded() === 1 && n < 200_000) {
        buf.push(lines(n, 1000));
        n += 1000;
      }
      const size = batchSize(lines(0, 1000)) / 1000;
      expect(n * size, 'unencoded records waited').to.be.at.least(DEFER_BYTES);
      expect(n * size).to.be.below(DEFER_BYTES + 1000 * size * 2);
      expect(encoded(), 'the push past the bound encoded its events').to.be.greaterThan(1);
      io.release();
      const got = await pullN(buf, n);
      expect(numbers(got)).to.deep.equal(Array.from({ length: n }, (_, i) => i));
      settleAll(got, 'delivered');
      await buf.dispose();
    } finally {
      io.release();
      io.restore();
    }
  });

  it('counts off an event it cannot encode in a record the reader will read from disk (beyond the tail)', async () => {
    const format: RecordFormat = { ...diskV2Format, maxEvents: 2 }; // two ~100 KB events per record: the 4 MiB tail holds about 40
    const buf = await open(format);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const events: LogEvent[] = Array.from({ length: 60 }, (_, i) => new LogEvent({ message: 'x'.repeat(100_000), n: i }, new EventMetadata('in', 'demo_logs')));
    // past the tail: one record with one bad event, one record of two bad events
    for (const i of [50, 52, 53]) events[i] = new LogEvent({ message: 'bad', n: i, c: cyclic as never }, new EventMetadata('in', 'demo_logs'));
    buf.push(events, 60 * 100_000); // a size said by the pusher: the records wait unencoded
    await until(() => t.registry.sum('component_errors_total', { component_id: 'out', error_type: 'write_failed' }) === 3, 5000, 'the writes');
    expect(buf.length, 'the lost events are counted off').to.equal(57);
    expect(t.registry.sum('buffer_events', { component_id: 'out' })).to.equal(57);
    expect(logs.join('')).to.contain('dropped');
    const got = await pullN(buf, 57);
    expect(numbers(got)).to.deep.equal(Array.from({ length: 60 }, (_, i) => i).filter((i) => ![50, 52, 53].includes(i)));
    settleAll(got, 'delivered');
    await until(() => t.registry.sum('buffer_events', { component_id: 'out' }) === 0, 2000, 'the deletes');
    expect(t.registry.sum('buffer_byte_size', { component_id: 'out' })).to.equal(0);
    await buf.dispose();
  });

  it('delivers from memory an event it cannot encode at the write, counts it, and stores the rest', async () => {
    const buf = await open(diskV2Format);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const bad = new LogEvent({ message: 'bad', n: 99, c: cyclic as never }, new EventMetadata('in', 'demo_logs'));
    // a size said by the pusher: the event waits unencoded like any other
    buf.push([...lines(0, 1), bad, ...lines(1, 1)], 300);
    await until(() => t.registry.sum('component_errors_total', { component_id: 'out', error_type: 'write_failed' }) === 1, 2000, 'the write');
    expect(logs.join('')).to.contain('cannot be encoded');
    const got = await pullN(buf, 3);
    expect(numbers(got)).to.deep.equal([0, 99, 1]);
    // a record of nothing but such events is not written at all; settling it empties the counts
    const alone = new LogEvent({ message: 'alone', n: 98, c: cyclic as never }, new EventMetadata('in', 'demo_logs'));
    buf.push([alone], 100);
    await until(() => t.registry.sum('component_errors_total', { component_id: 'out', error_type: 'write_failed' }) === 2, 2000, 'the second write');
    const lone = await pullN(buf, 1);
    expect(numbers(lone)).to.deep.equal([98]);
    settleAll(lone, 'delivered');
    expect(t.registry.sum('buffer_events', { component_id: 'out' })).to.equal(3);
    await buf.dispose(); // unsettled: what was stored replays
    const again = await open(diskV2Format);
    const back = await pullN(again, again.length);
    expect(numbers(back)).to.deep.equal([0, 1]);
    settleAll(back, 'delivered');
    await again.dispose();
  });
});

describe('DiskBuffer reusing record memory', () => {
  it('reuses the memory of records never written or already written, without touching records still to write', async function () {
    this.timeout(30_000);
    const dataDir = mkdtempSync(join(tmpdir(), 'weir-disk-slab-'));
    const io = interceptBatches();
    const t = new ComponentTelemetry(new MetricsRegistry({}), 'out', 'sink', 't');
    const open = () =>
      DiskBuffer.open({
        dir: join(dataDir, 'store'),
        sinkId: 'out',
        maxSize: 1 << 30,
        whenFull: 'block',
        metrics: new BufferMetrics(t),
        decodeErrors: t.counter('component_errors_total'),
        writeErrors: t.counter('component_errors_total'),
        log: new LogRoot('error', { write() {} }).logger(),
      });
    try {
      const buf = await open();
      const kept: number[] = [];
      let next = 0;
      // rounds that fit the in-memory tail (a line is about 125 bytes encoded): while each write is
      // held, the reader settles odd rounds (never written, memory released at once) and keeps even
      // ones (written, released after their write); twelve rounds span several slabs
      const perRound = Math.floor((TAIL_BYTES * 0.7) / 125);
      for (let round = 0; round < 12; round++) {
        io.holdWrites();
        buf.push(lines(next, 1));
        await until(() => io.calls.length > 0 && buf.length === 1, 2000, 'a write in flight');
        const first = await pullN(buf, 1);
        const waiting = pullN(buf, perRound);
        const batch = lines(next + 1, perRound);
        buf.push(batch);
        const got = [...first, ...(await waiting)];
        if (round % 2 === 1) settleAll(got, 'delivered');
        else kept.push(...numbers(got));
        next += perRound + 1;
        io.release();
        await until(() => buf.length === 0, 5000, 'the round');
      }
      await buf.dispose();
      io.restore();
      const again = await open();
      expect(again.length).to.equal(kept.length);
      const back = await pullN(again, kept.length);
      expect(numbers(back)).to.deep.equal(kept);
      expect((back[5] as LogEvent).fields.message).to.equal(`line ${kept[5]} ${'x'.repeat(100)}`);
      settleAll(back, 'delivered');
      await again.dispose();
      expect(t.registry.sum('component_errors_total', { component_id: 'out' })).to.equal(0);
    } finally {
      io.restore();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('DiskBuffer reading behind the in-memory tail', () => {
  it('reads and decodes from disk only the records the tail does not hold', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'weir-disk-gap-'));
    const decoded: number[] = [];
    const format: RecordFormat = {
      ...diskV2Format,
      maxEvents: 1, // one event per record, of a size the in-memory tail holds about 40 of
      decode(record) {
        const events = diskV2Format.decode(record);
        decoded.push(...numbers(events));
        return events;
      },
    };
    const t = new ComponentTelemetry(new MetricsRegistry({}), 'out', 'sink', 't');
    const buf = await DiskBuffer.open({
      dir: join(dataDir, 'store'),
      sinkId: 'out',
      maxSize: 1 << 30,
      whenFull: 'block',
      metrics: new BufferMetrics(t),
      decodeErrors: t.counter('component_errors_total'),
      writeErrors: t.counter('component_errors_total'),
      log: new LogRoot('error', { write() {} }).logger(),
      format,
    });
    try {
      const big = (from: number, n: number): EventBatch =>
        Array.from({ length: n }, (_, i) => new LogEvent({ message: 'x'.repeat(Math.floor(TAIL_BYTES / 41)), n: from + i }, new EventMetadata('in', 'demo_logs')));
      buf.push(big(0, 60)); // the first ~40 fit the tail, the rest only go to disk
      const first = await pullN(buf, 20);
      settleAll(first, 'delivered');
      expect(decoded).to.deep.equal([]);
      await until(() => buf.length === 40, 2000, 'the first pull');
      const second = await pullN(buf, 20); // frees the tail: the next records enter it behind a gap
      settleAll(second, 'delivered');
      buf.push(big(60, 20));
      const rest = await pullN(buf, 40);
      settleAll(rest, 'delivered');
      expect(numbers([...first, ...second, ...rest])).to.deep.equal(Array.from({ length: 80 }, (_, i) => i));
      expect(decoded.length).to.be.greaterThan(0);
      expect(Math.min(...decoded), 'records the tail held are not read again').to.be.greaterThan(39);
      expect(Math.max(...decoded), 'records behind the gap come from the tail').to.be.lessThan(60);
      await buf.dispose();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
