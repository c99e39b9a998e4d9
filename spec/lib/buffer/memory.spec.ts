import { expect } from 'chai';
import { MemoryBuffer } from '../../../lib/buffer/memory.js';
import { BufferMetrics } from '../../../lib/buffer/buffer.js';
import { ComponentTelemetry, MetricsRegistry } from '../../../lib/telemetry/registry.js';
import { BatchNotifier, LogEvent, EventMetadata, attachNotifier, type DeliveryStatus } from '../../../lib/event.js';

const mk = (n: number, from = 0) => Array.from({ length: n }, (_, i) => new LogEvent({ message: String(from + i) }, new EventMetadata('s', 't')));
function buffer(max: number, whenFull: 'block' | 'drop_newest') {
  const reg = new MetricsRegistry();
  const b = new MemoryBuffer(max, whenFull, new BufferMetrics(new ComponentTelemetry(reg, 'k', 'sink', 'x')));
  return { b, reg };
}

describe('memory buffer', () => {
  it('block: closes the gate at max_events and reopens as the reader drains', async () => {
    const { b } = buffer(10, 'block');
    b.push(mk(6));
    expect(b.gate.isOpen).to.equal(true);
    b.push(mk(6, 6));
    expect(b.gate.isOpen).to.equal(false);
    expect(b.length).to.equal(12);
    const got = await b.pull(5);
    expect(got!.map((e) => (e as LogEvent).fields.message)).to.deep.equal(['0', '1', '2', '3', '4']);
    expect(b.gate.isOpen).to.equal(true);
  });

  it('keeps FIFO order across chunk boundaries and partial reads', async () => {
    const { b } = buffer(1000, 'block');
    for (let i = 0; i < 50; i++) b.push(mk(7, i * 7));
    const seen: string[] = [];
    while (b.length > 0) for (const e of (await b.pull(13))!) seen.push((e as LogEvent).fields.message as string);
    expect(seen).to.deep.equal(Array.from({ length: 350 }, (_, i) => String(i)));
  });

  it('drop_newest: never closes the gate, counts drops and settles them as errored', () => {
    const { b, reg } = buffer(5, 'drop_newest');
    const statuses: DeliveryStatus[] = [];
    const batch = mk(8);
    attachNotifier(batch.slice(5), new BatchNotifier((s) => statuses.push(s)));
    b.push(batch);
    expect(b.gate.isOpen).to.equal(true);
    expect(b.length).to.equal(5);
    expect(reg.sum('buffer_discarded_events_total')).to.equal(3);
    expect(statuses).to.deep.equal(['errored']);
  });

  it('a pull waits for data; close drains then ends', async () => {
    const { b } = buffer(10, 'block');
    const p = b.pull(10);
    b.push(mk(2));
    expect((await p)!.length).to.equal(2);
    b.push(mk(1));
    b.close();
    expect((await b.pull(10))!.length).to.equal(1);
    expect(await b.pull(10)).to.equal(undefined);
  });

  it('tracks buffer_events and buffer_byte_size gauges', async () => {
    const { b, reg } = buffer(100, 'block');
    b.push(mk(4));
    expect(reg.sum('buffer_events')).to.equal(4);
    expect(reg.sum('buffer_byte_size')).to.be.greaterThan(0);
    await b.pull(4);
    expect(reg.sum('buffer_events')).to.equal(0);
    expect(reg.sum('buffer_byte_size')).to.equal(0);
    expect(reg.sum('buffer_sent_events_total')).to.equal(4);
  });
});
