/**
 * One batch's object body: joined into pooled memory, its records released, compressed. A body is up
 * to `batch.max_bytes` (10 MB by default) outside V8's heap, dead once compressed or written, and
 * freed only when a collection finds its Buffer: with gzip and a few objects in flight, 60-100 MiB
 * of dead bodies waited at once (docs/performance.md, "Object storage benchmark"). The pool gives
 * their memory to the next body.
 */
import type { Event } from '../../../lib/event.js';
import type { Compressor } from '../../../lib/net/compression.js';
import { BodyPool } from '../body-pool.js';
import { type ObjectBodyEncoder, joinBatch } from './body.js';
import type { EncodedObjectEvent, ObjectEventEncoder } from './encoded.js';

/** Room above `batch.max_bytes` for a body's framing and the record that closed the batch. */
const BODY_SLACK = 1024 * 1024;

/** A sink's object bodies. */
export interface ObjectBodies {
  /** The compressed body of a batch's items, and their events. */
  build(items: readonly EncodedObjectEvent[]): Promise<{ body: Buffer; events: Event[] }>;
  /** A request's attempts are over: an uncompressed body (the pool's memory) takes the next one. */
  finished(body: Buffer): void;
}

/** Compiled once per sink: two bodies kept free, each up to its batches' largest (`maxBytes`). */
export function objectBodies(body: ObjectBodyEncoder, encoder: ObjectEventEncoder, compressor: Compressor, maxBytes: number | undefined): ObjectBodies {
  const pool = new BodyPool({ freeBuffers: 2, largestKept: maxBytes === undefined ? undefined : maxBytes + BODY_SLACK });
  const take = (size: number) => pool.take(size);
  return {
    build: async (items) => {
      const { raw, events } = joinBatch(body, items, encoder.release, take);
      const out = await compressor.compress(raw);
      if (out !== raw) pool.give(raw);
      return { body: out, events };
    },
    finished: (b) => pool.give(b),
  };
}
