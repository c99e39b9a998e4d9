import { expect } from 'chai';
import { componentContext } from '../../../lib/component-context.js';
import { EncodedLogEvent, type EventBatch } from '../../../lib/event.js';
import { GateController } from '../../../lib/gate.js';
import { MetricsRegistry } from '../../../lib/telemetry/registry.js';
import type { WorkerPool } from '../../../lib/threads/pool.js';
import { type Piece, type PieceResult, type SegmentSetup, failedResult } from '../../../lib/threads/protocol.js';
import { ThreadedSegment } from '../../../lib/threads/segment.js';

/** A pool that keeps the pieces; the test answers them in any order. */
function fakePool(size = 1) {
  const pieces: Piece[] = [];
  const recycled: ArrayBufferLike[] = [];
  let handler: { result(r: PieceResult): void } | undefined;
  const pool = {
    size,
    register: (_s: SegmentSetup, h: { result(r: PieceResult): void }) => (handler = h),
    unregister: () => {},
    dispatch: (p: Piece) => pieces.push(p),
    recycle: (b: ArrayBufferLike) => recycled.push(b),
  };
  /** Answers a piece as a worker would for a pipeline that keeps every line as its own record. */
  const answer = (p: Piece, counters: PieceResult['counters'] = []) => {
    const lines = Buffer.from(p.bytes).toString().split('\n');
    if (!p.final) lines.pop();
    // records back to back with a one-byte separator between them, as a worker writes them
    const ends = new Uint32Array(lines.length);
    let at = -1;
    lines.forEach((l, i) => (ends[i] = at += 1 + Buffer.byteLength(l)));
    handler!.result({
      kind: 'result',
      segment: p.segment,
      seq: p.seq,
      bytes: Buffer.from(lines.join('\n')),
      ends,
      gap: 1,
      eventBytes: Uint32Array.from(lines, (l) => l.length + 10),
      decoded: lines.length,
      decodedBytes: lines.length * 10,
      counters,
    });
  };
  return { pool: pool as unknown as WorkerPool, pieces, answer, recycled };
}

function segment(size = 1, maxLength = 100) {
  const f = fakePool(size);
  const registry = new MetricsRegistry({});
  const source = componentContext({ id: 'in', kind: 'source', type: 'socket', registry });
  const out: string[] = [];
  const events: EncodedLogEvent[] = [];
  const decoded: number[] = [];
  const seg = new ThreadedSegment({
    pool: f.pool,
    setup: { kind: 'setup', segment: 0 } as SegmentSetup,
    source,
    registry,
    maxLength,
    decoded: (n) => decoded.push(n),
    emit: (batch: EventBatch) => {
      for (const e of batch) out.push((e as EncodedLogEvent).text);
      events.push(...(batch as EncodedLogEvent[]));
    },
  });
  return { ...f, seg, out, events, decoded, registry };
}

const text = (p: Piece) => Buffer.from(p.bytes).toString();

describe('threaded segment (main thread side)', () => {
  it('cuts reads at their last newline: pieces hold whole lines, the tail waits for the next read', () => {
    const { seg, pieces } = segment();
    const c = seg.connection('h', 1);
    c.push(Buffer.from('a1\na2\na'));
    c.push(Buffer.from('3\na4'));
    c.push(Buffer.from('\n'));
    c.push(Buffer.from('tail'));
    c.end();
    expect(pieces.map(text)).to.deep.equal(['a1\na2\n', 'a3\n', 'a4\n', 'tail']);
    expect(pieces.map((p) => p.final)).to.deep.equal([false, false, false, true]);
    expect(pieces.map((p) => p.seq)).to.deep.equal([0, 1, 2, 3]);
    expect(pieces[0]!.host).to.equal('h');
  });

  it('releases answers strictly in sequence, whatever order they come in', () => {
    const { seg, pieces, answer, out } = segment(4);
    const c = seg.connection(undefined, undefined);
    for (let i = 0; i < 5; i++) c.push(Buffer.from(`${i}a\n${i}b\n`));
    answer(pieces[3]!);
    answer(pieces[1]!);
    expect(out).to.deep.equal([]);
    answer(pieces[0]!);
    expect(out).to.deep.equal(['0a', '0b', '1a', '1b']);
    answer(pieces[4]!);
    answer(pieces[2]!);
    expect(out).to.deep.equal(['0a', '0b', '1a', '1b', '2a', '2b', '3a', '3b', '4a', '4b']);
  });

  it('discards a line longer than max_length up to its newline, counted as the deframer counts it', () => {
    const { seg, pieces, registry } = segment(1, 5);
    const c = seg.connection(undefined, undefined);
    c.push(Buffer.from('ok\n1234'));
    c.push(Buffer.from('5678'));
    c.push(Buffer.from('90\nnext\n'));
    expect(pieces.map(text)).to.deep.equal(['ok\n', 'next\n']);
    expect(registry.sum('component_errors_total', { error_code: 'decoder_frame' })).to.equal(1);
  });

  it('closes its gate at four pieces out per worker and opens it as answers are released', () => {
    const { seg, pieces, answer } = segment(1);
    const c = seg.connection(undefined, undefined);
    for (let i = 0; i < 3; i++) c.push(Buffer.from('x\n'));
    expect(seg.gate.isOpen).to.equal(true);
    c.push(Buffer.from('x\n'));
    expect(seg.gate.isOpen).to.equal(false);
    answer(pieces[1]!); // out of order: still out until piece 0 is released
    expect(seg.gate.isOpen).to.equal(false);
    answer(pieces[0]!);
    expect(seg.gate.isOpen).to.equal(true);
    expect(seg.out).to.equal(2);
  });

  it('sends at most four pieces per worker; reads past the bound (many connections) wait and go in sequence', () => {
    const { seg, pieces, answer, out } = segment(1);
    const conns = Array.from({ length: 10 }, () => seg.connection(undefined, undefined));
    // every connection delivers its current read after the gate closed
    conns.forEach((c, i) => c.push(Buffer.from(`c${i}\n`)));
    expect(seg.gate.isOpen).to.equal(false);
    expect(pieces.length).to.equal(4);
    expect(seg.out).to.equal(10);
    for (let k = 0; k < 10; k++) answer(pieces[k]!);
    expect(pieces.map((p) => p.seq)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(out).to.deep.equal(conns.map((_, i) => `c${i}`));
    expect(seg.out).to.equal(0);
    expect(seg.gate.isOpen).to.equal(true);
  });

  it('holds answers while a buffer downstream is closed and releases them when it opens', () => {
    const { seg, pieces, answer, out } = segment(2);
    const buffer = new GateController(false);
    seg.downstream.setMembers([buffer]);
    const c = seg.connection(undefined, undefined);
    c.push(Buffer.from('a\n'));
    answer(pieces[0]!);
    expect(out).to.deep.equal([]);
    expect(seg.out).to.equal(1);
    buffer.open();
    expect(out).to.deep.equal(['a']);
    expect(seg.out).to.equal(0);
  });

  it('adds the counters a worker recorded to the same series, and resolves whenDrained once all is released', async () => {
    const { seg, pieces, answer, registry, decoded } = segment(1);
    const c = seg.connection(undefined, undefined);
    c.push(Buffer.from('a\nb\n'));
    const drained = seg.whenDrained();
    let done = false;
    void drained.then(() => (done = true));
    await Promise.resolve();
    expect(done).to.equal(false);
    answer(pieces[0]!, [['component_sent_events_total', { component_id: 'in', output: '_default' }, 2]]);
    await drained;
    expect(registry.sum('component_sent_events_total', { component_id: 'in' })).to.equal(2);
    expect(decoded).to.deep.equal([2]);
  });

  it("gives an answer's buffer back once the sink copied all its records, not before", () => {
    const { seg, pieces, answer, events, recycled } = segment();
    const c = seg.connection('h', 1);
    c.push(Buffer.from('a1\na2\na3\n'));
    c.push(Buffer.from('b1\n'));
    answer(pieces[0]!);
    answer(pieces[1]!);
    const [a1, a2, a3, b1] = events;
    expect(a1!.records).to.equal(a3!.records);
    expect(a1!.records).to.not.equal(b1!.records);
    a1!.records!.done(2); // a run of two records copied into one body
    expect(recycled).to.deep.equal([]);
    a3!.records!.done(1);
    expect(recycled).to.deep.equal([a2!.bytes.buffer]);
    b1!.records!.done(1);
    expect(recycled).to.have.length(2);
    // a copy of a record keeps bytes of its own: it never holds a buffer that goes back
    const copy = b1!.clone();
    expect(copy.records).to.equal(undefined);
    b1!.bytes.fill(0x20); // the answer's buffer written again
    expect(copy.text).to.equal('b1');
  });

  it('counts a piece no worker could process in component_errors_total (worker_failed)', () => {
    const { seg, pieces, registry, out } = segment(1);
    const c = seg.connection(undefined, undefined);
    c.push(Buffer.from('a\n'));
    (seg as unknown as { answer(r: PieceResult): void }).answer(failedResult(0, pieces[0]!.seq, 'boom'));
    expect(out).to.deep.equal([]);
    expect(registry.sum('component_errors_total', { error_type: 'worker_failed' })).to.equal(1);
    expect(seg.out).to.equal(0);
  });
});
