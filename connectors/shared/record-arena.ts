/**
 * The buffers a request sink writes its events' records into, as UTF-8, when the events enter it.
 * Records stay where they are written until their batch's body is built; a full buffer whose
 * records were all released is written again, so the sink does not leave a trail of dead buffers
 * for the garbage collector (their memory is outside V8's heap, where a collection comes late),
 * and a batch waiting for its request holds its text as bytes, not as one string per event.
 */
import { Utf8Writer } from '../../lib/codecs/json-bytes.js';
import { EncodedLogEvent } from '../../lib/event.js';

/** Size of the buffers records are written into (a longer record gets one of its own size). */
const ARENA_BYTES = 256 * 1024;
/** Full buffers whose records were all released, kept for reuse. */
const ARENA_FREE = 4;

/** Records of one arena buffer not yet released, and whether records are still being written into it. */
interface ArenaSlab {
  pending: number;
  current: boolean;
}

/** A record: its UTF-8 bytes are `bytes[start, end)` (the sink's own, or a pipeline worker's). */
export interface RecordBytes {
  readonly bytes: Buffer;
  readonly start: number;
  readonly end: number;
}

export class RecordArena {
  readonly writer = new Utf8Writer(ARENA_BYTES);
  private readonly slabs = new WeakMap<Buffer, ArenaSlab>();
  private readonly free: Buffer[] = [];
  private slab: ArenaSlab = { pending: 0, current: true };
  constructor() {
    this.slabs.set(this.writer.buf, this.slab);
    // a record that does not fit moves on into a free buffer, or a new one
    this.writer.nextBuffer = (size) => (size <= ARENA_BYTES ? (this.free.pop() ?? Buffer.allocUnsafeSlow(ARENA_BYTES)) : Buffer.allocUnsafeSlow(size));
  }

  /**
   * Writes one record, `write(item, writer)`, and returns where it starts (it ends at the writer's
   * position); what `write` throws leaves nothing of the record behind. `write` is the sink's own
   * function, not a closure per record.
   */
  record<T>(write: (item: T, w: Utf8Writer) => void, item: T): number {
    const w = this.writer;
    const before = w.buf;
    w.mark = w.pos;
    try {
      write(item, w);
    } catch (err) {
      // counted as written and released, so a move to another buffer is accounted
      w.pos = w.mark;
      this.written(before);
      this.release(w.buf, 1);
      throw err;
    }
    this.written(before);
    return w.mark;
  }

  /** After a record was written: when it moved on, the buffer it started in is full. */
  private written(before: Buffer): void {
    const buf = this.writer.buf;
    if (buf !== before) {
      this.slab.current = false;
      if (this.slab.pending === 0) this.reuse(before);
      this.slabs.set(buf, (this.slab = { pending: 0, current: true }));
    }
    this.slab.pending++;
  }

  /** `n` records of `buf` were copied into a body. */
  release(buf: Buffer, n: number): void {
    const slab = this.slabs.get(buf);
    if (slab === undefined) return;
    slab.pending -= n;
    if (slab.pending === 0 && !slab.current) this.reuse(buf);
  }

  /**
   * A batch's records were copied into its body and nothing reads them again: the sink's own go
   * back to this arena, a pipeline worker's answer to its worker once all its records are in
   * bodies (docs/threads.md). One call per run of records sharing a buffer.
   */
  releaseAll(items: readonly RecordBytes[]): void {
    for (let i = 0; i < items.length; ) {
      const first = items[i]!;
      const buf = first.bytes;
      let j = i + 1;
      while (j < items.length && items[j]!.bytes === buf) j++;
      if (first instanceof EncodedLogEvent) first.records?.done(j - i);
      else this.release(buf, j - i);
      i = j;
    }
  }

  private reuse(buf: Buffer): void {
    this.slabs.delete(buf);
    if (buf.length === ARENA_BYTES && this.free.length < ARENA_FREE) this.free.push(buf);
  }
}
