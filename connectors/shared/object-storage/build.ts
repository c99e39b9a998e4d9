/**
 * One batch's object body: joined into pooled memory, its records released, compressed. A body is up
 * to `batch.max_bytes` (10 MB by default) outside V8's heap, dead once compressed or written, and
 * freed only when a collection finds its Buffer: with gzip and a few objects in flight, 60-100 MiB
 * of dead bodies waited at once (docs/memory.md). The pool gives their memory to the next body.
 */
import type { Event } from '../../../lib/event.js';
import type { Compressor } from '../../../lib/net/compression.js';
import { BodyPool } from '../body-pool.js';
import type { RecordBytes } from '../record-arena.js';
import { type ObjectBodyEncoder, joinBatch } from './body.js';

/** Room above `batch.max_bytes` for a body's framing and the record that closed the batch. */
const BODY_SLACK = 1024 * 1024;

/** The pool of a sink's uncompressed bodies: two kept free, each up to its batches' largest body. */
export const objectBodyPool = (maxBytes: number | undefined): BodyPool =>
  new BodyPool({ freeBuffers: 2, largestKept: maxBytes === undefined ? undefined : maxBytes + BODY_SLACK });

/**
 * The compressed body of a batch's items and their events. A body left uncompressed is the one the
 * request sends: the sink gives it back to `bodies` once the request is over (`finished`).
 */
export async function buildObjectBody<I extends RecordBytes & { readonly event: Event }>(
  items: readonly I[],
  body: ObjectBodyEncoder,
  release: (items: readonly I[]) => void,
  compressor: Compressor,
  bodies: BodyPool,
): Promise<{ body: Buffer; events: Event[] }> {
  const { raw, events } = joinBatch(body, items, release, (size) => bodies.take(size));
  const out = await compressor.compress(raw);
  if (out !== raw) bodies.give(raw);
  return { body: out, events };
}
