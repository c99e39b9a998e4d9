/**
 * Bounded in-memory edge buffer: a ring of chunks (no Array#shift on the hot path), counted in
 * events. `max_events` closes the producer gate under `block`; `drop_newest` never closes it and
 * counts what it drops (data lost, as Vector documents). Each chunk keeps its estimated size, so events are
 * sized once on the way in and again only when a read splits a chunk.
 */
import { type EventBatch, batchSize, rememberBatchSize, settleAll } from '../event.js';
import { GateController } from '../gate.js';
import type { BufferMetrics, EdgeBuffer, WhenFull } from './buffer.js';

interface Chunk {
  events: EventBatch;
  bytes: number;
}

/** FIFO of chunks that grows by doubling; O(1) push and shift. */
class ChunkRing {
  private items: (Chunk | undefined)[] = new Array(16);
  private head = 0;
  size = 0;
  push(x: Chunk): void {
    if (this.size === this.items.length) {
      const next: (Chunk | undefined)[] = new Array(this.items.length * 2);
      for (let i = 0; i < this.size; i++) next[i] = this.items[(this.head + i) % this.items.length];
      this.items = next;
      this.head = 0;
    }
    this.items[(this.head + this.size) % this.items.length] = x;
    this.size++;
  }
  peek(): Chunk | undefined {
    return this.size === 0 ? undefined : this.items[this.head];
  }
  shift(): Chunk | undefined {
    if (this.size === 0) return undefined;
    const x = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) % this.items.length;
    this.size--;
    return x;
  }
}

export class MemoryBuffer implements EdgeBuffer {
  private readonly ring = new ChunkRing();
  private readonly ctl = new GateController(true);
  private count = 0;
  private waiter: ((b: EventBatch | undefined) => void) | undefined;
  private waiterMax = 0;
  private closed = false;
  readonly gate = this.ctl;

  constructor(
    readonly maxEvents: number,
    readonly whenFull: WhenFull,
    private readonly metrics: BufferMetrics,
  ) {}

  get length(): number {
    return this.count;
  }

  push(events: EventBatch, bytes?: number): void {
    if (events.length === 0) return;
    let accepted = events;
    if (this.whenFull === 'drop_newest') {
      const room = this.maxEvents - this.count;
      if (room < events.length) {
        const dropped = room <= 0 ? events : events.slice(room);
        accepted = room <= 0 ? [] : events.slice(0, room);
        bytes = undefined;
        this.metrics.discarded.add(dropped.length);
        // drop_newest loses the event; its sources learn it was not delivered
        settleAll(dropped, 'errored');
        if (accepted.length === 0) return;
      }
    }
    const size = bytes ?? batchSize(accepted);
    this.metrics.receivedEvents.add(accepted.length);
    this.metrics.receivedBytes.add(size);
    this.metrics.events.add(accepted.length);
    this.metrics.bytes.add(size);
    this.ring.push({ events: accepted, bytes: size });
    this.count += accepted.length;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w(this.take(this.waiterMax));
      return;
    }
    if (this.whenFull === 'block' && this.count >= this.maxEvents) this.ctl.close();
  }

  pull(max: number): Promise<EventBatch | undefined> {
    if (this.count > 0) return Promise.resolve(this.take(max));
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiter = resolve;
      this.waiterMax = max;
    });
  }

  /** Removes up to max events from the front, joining chunks. */
  private take(max: number): EventBatch {
    let out: EventBatch | undefined;
    let bytes = 0;
    while (this.ring.size > 0) {
      const head = this.ring.peek()!;
      const want = max - (out?.length ?? 0);
      if (want <= 0) break;
      if (head.events.length <= want) {
        this.ring.shift();
        out = out ? out.concat(head.events) : head.events;
        bytes += head.bytes;
      } else {
        const part = head.events.slice(0, want);
        const partBytes = batchSize(part);
        head.events = head.events.slice(want);
        head.bytes = Math.max(0, head.bytes - partBytes);
        out = out ? out.concat(part) : part;
        bytes += partBytes;
      }
    }
    out ??= [];
    this.count -= out.length;
    this.metrics.events.add(-out.length);
    this.metrics.bytes.add(-bytes);
    this.metrics.sentEvents.add(out.length);
    this.metrics.sentBytes.add(bytes);
    if (this.count < this.maxEvents) this.ctl.open();
    // the sink's received bytes are these: its pull loop need not size the events again
    rememberBatchSize(out, bytes);
    return out;
  }

  close(): void {
    this.closed = true;
    this.ctl.open(); // nothing more will be pushed: never hold producers back on a closed buffer
    this.release();
  }

  release(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.(undefined);
  }

  async dispose(): Promise<void> {
    this.close();
  }
}
