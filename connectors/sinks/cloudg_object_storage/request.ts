/** One batch of one key prefix to one object. */
import type { Compressor } from '../../../lib/net/compression.js';
import { type ObjectBodyEncoder, joinBatch } from '../../shared/object-storage/body.js';
import type { ObjectNamer } from '../../shared/object-storage/naming.js';
import type { SinkRequest } from '../../shared/request-sink.js';
import type { EncodedObjectEvent } from '../../shared/object-storage/encoded.js';

/** An object to write; a retry writes the same name and body again. */
export interface ObjectRequest extends SinkRequest {
  readonly key: string;
  readonly body: Buffer;
}


/** The object of a batch: named when built (`nowMs`), joined, compressed. */
export async function buildObjectRequest(items: readonly EncodedObjectEvent[], prefix: string, nowMs: number, body: ObjectBodyEncoder, namer: ObjectNamer, compressor: Compressor): Promise<ObjectRequest> {
  const { raw, events } = joinBatch(body, items);
  const bytes = await compressor.compress(raw);
  return { events, key: namer.keyFor(prefix, nowMs), body: bytes, bytes: bytes.length };
}
