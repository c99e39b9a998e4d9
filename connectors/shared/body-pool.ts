/**
 * The memory of request bodies, used again once a request is over. A body is a few hundred KiB
 * outside V8's heap, dead as soon as its request is answered, yet freed only by the next collection
 * of the young generation that finds its Buffer: between two of them a busy sink leaves 8–10 MiB
 * of dead bodies (the main thread's peak RSS with pipeline workers, docs/memory.md). A body is a view
 * of a pooled buffer at least its size; the request sink gives it back when its last attempt is over,
 * so no attempt can still be sending it.
 */

/** Pooled buffers grow in steps of this size, so bodies of similar sizes share them. */
const STEP = 64 * 1024;

export interface BodyPoolOptions {
  /** Free buffers kept, at most (the requests in flight plus the one building are out, not free). */
  readonly freeBuffers?: number;
  /**
   * A buffer larger than this is not kept: a rare large batch must not stay resident. A sink whose
   * bodies are large by design (object storage: up to `batch.max_bytes`) keeps those.
   */
  readonly largestKept?: number;
}

export class BodyPool {
  private readonly free: Buffer[] = [];
  /** The whole buffer of each body out, by the body's memory. */
  private readonly out = new WeakMap<ArrayBufferLike, Buffer>();
  private readonly freeBuffers: number;
  private readonly largestKept: number;
  constructor(options: BodyPoolOptions = {}) {
    this.freeBuffers = options.freeBuffers ?? 4;
    this.largestKept = options.largestKept ?? 4 * 1024 * 1024;
  }

  /** A body of exactly `size` bytes, its contents unset. */
  take(size: number): Buffer {
    let whole: Buffer | undefined;
    for (let i = 0; i < this.free.length; i++) {
      if (this.free[i]!.length >= size) {
        whole = this.free[i]!;
        this.free.splice(i, 1);
        break;
      }
    }
    whole ??= Buffer.allocUnsafeSlow(Math.ceil(Math.max(size, 1) / STEP) * STEP);
    this.out.set(whole.buffer, whole);
    return whole.subarray(0, size);
  }

  /** A body of {@link take} is over: its memory takes another. Other buffers are ignored. */
  give(body: Buffer): void {
    const whole = this.out.get(body.buffer);
    if (whole === undefined) return;
    this.out.delete(body.buffer);
    if (whole.length > this.largestKept) return;
    if (this.free.length >= this.freeBuffers) this.free.shift();
    this.free.push(whole);
  }
}
