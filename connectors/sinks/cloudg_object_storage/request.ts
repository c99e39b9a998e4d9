/** One batch of one key prefix to one object. */
import type { ObjectBodies } from '../../shared/object-storage/build.js';
import type { ObjectNamer } from '../../shared/object-storage/naming.js';
import type { SinkRequest } from '../../shared/request-sink.js';
import type { EncodedObjectEvent } from '../../shared/object-storage/encoded.js';

/** An object to write; a retry writes the same name and body again. */
export interface ObjectRequest extends SinkRequest {
  readonly key: string;
  readonly body: Buffer;
}

/** The object of a batch: named when built (`nowMs`), its body joined and compressed. */
export async function buildObjectRequest(items: readonly EncodedObjectEvent[], prefix: string, nowMs: number, namer: ObjectNamer, bodies: ObjectBodies): Promise<ObjectRequest> {
  const { body: bytes, events } = await bodies.build(items);
  return { events, key: namer.keyFor(prefix, nowMs), body: bytes, bytes: bytes.length };
}
