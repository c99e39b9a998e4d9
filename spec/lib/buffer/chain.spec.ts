import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BufferContext, BufferMetrics, ChainedBuffer, type EdgeBuffer, MemoryBuffer, createBuffer } from '../../../lib/buffer/index.js';
import { componentContext } from '../../../lib/component-context.js';
import type { BufferConfig } from '../../../lib/config/options/buffer.js';
import { BatchNotifier, type DeliveryStatus, type EventBatch, EventMetadata, LogEvent, attachNotifier, settleAll } from '../../../lib/event.js';
import { LogRoot } from '../../../lib/log.js';
import { ComponentTelemetry, MetricsRegistry } from '../../../lib/telemetry/registry.js';

const mk = (from: number, n: number): EventBatch => Array.from({ length: n }, (_, i) => new LogEvent({ n: from + i }, new EventMetadata('s', 't')));
const ns = (b: EventBatch | undefined) => (b ?? []).map((e) => (e as LogEvent).fields.n as number);

/** Two memory stages, the first overflowing into the second. */
function memoryChain(first: number, second: number, lastWhenFull: 'block' | 'drop_newest') {
  const reg = new MetricsRegistry();
  const t = new ComponentTelemetry(reg, 'out', 'sink', 'x');
  const a = new MemoryBuffer(first, 'block', new BufferMetrics(t, { stage: '0' }));
  const b = new MemoryBuffer(second, lastWhenFull, new BufferMetrics(t, { stage: '1' }));
  const chain = new ChainedBuffer([
    { buffer: a, room: () => Math.max(0, first - a.length) },
    { buffer: b, room: () => Math.max(0, second - b.length) },
  ]);
  const metric = (name: string, stage: string) => reg.sum(name, { component_id: 'out', stage });
  return { chain, a, b, metric };
}

describe('chained buffer (when_full = overflow)', () => {
  it('fills the first stage, then the next one takes what does not fit, counted per stage', () => {
    const { chain, a, b, metric } = memoryChain(5, 10, 'block');
    chain.push(mk(0, 3));
    chain.push(mk(3, 4)); // 2 fit in the first stage, 2 overflow
    expect([a.length, b.length, chain.length]).to.deep.equal([5, 2, 7]);
    chain.push(mk(7, 1));
    expect([a.length, b.length]).to.deep.equal([5, 3]);
    expect(metric('buffer_received_events_total', '0')).to.equal(5);
    expect(metric('buffer_received_events_total', '1')).to.equal(3);
    expect(metric('buffer_events', '0')).to.equal(5);
    expect(metric('buffer_events', '1')).to.equal(3);
    expect(metric('buffer_discarded_events_total', '0') + metric('buffer_discarded_events_total', '1')).to.equal(0);
  });

  it('closes its gate only when the last stage is full (block), and opens when any stage has room', async () => {
    const { chain, a, b } = memoryChain(3, 4, 'block');
    chain.push(mk(0, 3));
    expect(a.gate.isOpen, 'first stage full').to.equal(false);
    expect(chain.gate.isOpen, 'the next stage still has room').to.equal(true);
    chain.push(mk(3, 3));
    expect(chain.gate.isOpen).to.equal(true);
    chain.push(mk(6, 2)); // block never refuses: what is in flight lands in the last stage
    expect(b.length).to.equal(5);
    expect(chain.gate.isOpen).to.equal(false);
    await chain.pull(2); // from the first stage: room there again
    expect(a.length).to.equal(1);
    expect(chain.gate.isOpen).to.equal(true);
    chain.push(mk(8, 2));
    expect(a.length).to.equal(3);
    expect(chain.gate.isOpen).to.equal(false);
  });

  it('drop_newest at the end of the chain drops only what no stage holds, counted on the last stage', () => {
    const { chain, a, b, metric } = memoryChain(2, 3, 'drop_newest');
    const statuses: DeliveryStatus[] = [];
    const batch = mk(0, 8);
    attachNotifier(batch, new BatchNotifier((s) => statuses.push(s)));
    chain.push(batch);
    expect([a.length, b.length]).to.deep.equal([2, 3]);
    expect(chain.gate.isOpen).to.equal(true);
    expect(metric('buffer_discarded_events_total', '1')).to.equal(3);
    expect(metric('buffer_discarded_events_total', '0')).to.equal(0);
    expect(statuses).to.deep.equal([]); // the notifier waits for the 5 held events as well
  });

  it('keeps each stage in order but not the chain: the reader serves the stages in turn', async () => {
    const { chain } = memoryChain(5, 10, 'block');
    chain.push(mk(0, 5));
    chain.push(mk(5, 5)); // all into the second stage
    const got: number[][] = [];
    while (chain.length > 0) got.push(ns(await chain.pull(3)));
    // as Vector documents for overflow: order across stages is not kept, neither stage waits for the other to empty
    expect(got).to.deep.equal([[0, 1, 2], [5, 6, 7], [3, 4], [8, 9]]);
  });

  it('a waiting reader is served by the next push; once closed it drains every stage, then ends', async () => {
    const { chain } = memoryChain(2, 10, 'block');
    const first = chain.pull(10);
    chain.push(mk(0, 5)); // 2 in the first stage, 3 overflow
    expect(ns(await first)).to.deep.equal([0, 1]);
    chain.close();
    expect(ns(await chain.pull(10))).to.deep.equal([2, 3, 4]);
    expect(await chain.pull(10)).to.equal(undefined);
  });

  it('release wakes the reader without losing what a stage hands out later', async () => {
    const { chain } = memoryChain(2, 10, 'block');
    const p = chain.pull(10);
    chain.release();
    expect(await p).to.equal(undefined);
    chain.push(mk(0, 4));
    const got: number[] = [];
    while (chain.length > 0) got.push(...ns(await chain.pull(10)));
    expect(got.sort((x, y) => x - y)).to.deep.equal([0, 1, 2, 3]);
  });
});

describe('chained buffer: memory overflowing to disk', () => {
  let dataDir: string;
  let registry: MetricsRegistry;
  const ctx = (): BufferContext =>
    componentContext({ id: 'out', kind: 'sink', type: 'test_collect', registry, log: new LogRoot('error', { write: () => undefined }, 0).logger(), globals: { data_dir: dataDir } });
  const config = (maxEvents: number): BufferConfig => ({
    type: 'memory',
    max_events: maxEvents,
    when_full: 'overflow',
    overflow: { type: 'disk', max_events: 500, max_size: 1 << 30, when_full: 'block' },
  });
  const metric = (name: string, stage: string) => registry.sum(name, { component_id: 'out', stage });
  async function drain(buf: EdgeBuffer, n: number, status?: DeliveryStatus): Promise<number[]> {
    const out: number[] = [];
    while (out.length < n) {
      const b = await buf.pull(16);
      if (!b) throw new Error(`ended after ${out.length} of ${n}`);
      out.push(...ns(b));
      if (status) settleAll(b, status);
    }
    return out;
  }
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'weir-chain-'));
    registry = new MetricsRegistry({});
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('takes more than memory holds, delivers each event once, and reports both stages', async () => {
    const buf = await createBuffer(config(10), ctx());
    for (let i = 0; i < 10; i++) buf.push(mk(i * 5, 5));
    expect(buf.gate.isOpen).to.equal(true);
    expect(metric('buffer_received_events_total', '0')).to.equal(10);
    expect(metric('buffer_received_events_total', '1')).to.equal(40);
    expect(registry.sum('buffer_max_event_size', { component_id: 'out', stage: '0' })).to.equal(10);
    expect(registry.sum('buffer_max_byte_size', { component_id: 'out', stage: '1' })).to.equal(1 << 30);
    const got = await drain(buf, 50, 'delivered');
    expect(got.slice().sort((x, y) => x - y)).to.deep.equal(Array.from({ length: 50 }, (_, i) => i));
    expect(buf.length).to.equal(0);
    expect(metric('buffer_sent_events_total', '0')).to.equal(10);
    expect(metric('buffer_sent_events_total', '1')).to.equal(40);
    await buf.dispose();
  });

  it('overflowed events are acknowledged by the disk stage once synced; those in memory wait for the sink', async () => {
    const buf = await createBuffer(config(3), ctx());
    const inMemory: DeliveryStatus[] = [];
    const onDisk: DeliveryStatus[] = [];
    const a = mk(0, 3);
    const b = mk(3, 3);
    attachNotifier(a, new BatchNotifier((s) => inMemory.push(s)));
    attachNotifier(b, new BatchNotifier((s) => onDisk.push(s)));
    buf.push(a);
    buf.push(b);
    // the disk stage syncs a write carrying acknowledgements at once
    for (let turns = 0; onDisk.length === 0 && turns < 10_000; turns++) await new Promise((r) => setImmediate(r));
    expect(onDisk).to.deep.equal(['delivered']);
    expect(inMemory).to.deep.equal([]);
    await drain(buf, 6, 'delivered');
    expect(inMemory).to.deep.equal(['delivered']);
    await buf.dispose();
  });

  it('what overflowed to disk and was not delivered is read again after a restart', async () => {
    const first = await createBuffer(config(4), ctx());
    first.push(mk(0, 4));
    first.push(mk(4, 6)); // on disk
    await first.dispose();
    registry = new MetricsRegistry({});
    const second = await createBuffer(config(4), ctx());
    expect(second.length).to.equal(6);
    expect(await drain(second, 6, 'delivered')).to.deep.equal([4, 5, 6, 7, 8, 9]);
    await second.dispose();
  });
});
