/** One batch of one key prefix to one object. */
import type { Compressor } from '../../../lib/net/compression.js';
import type { BodyPool } from '../../shared/body-pool.js';
import type { ObjectBodyEncoder } from '../../shared/object-storage/body.js';
import { buildObjectBody } from '../../shared/object-storage/build.js';
import type { ObjectNamer } from '../../shared/object-storage/naming.js';
import type { SinkRequest } from '../../shared/request-sink.js';
import type { EncodedObjectEvent } from '../../shared/object-storage/encoded.js';

/** An object to write; a retry writes the same name and body again. */
export interface ObjectRequest extends SinkRequest {
  readonly key: string;
  readonly body: Buffer;
}


/** The object of a batch: named when built (`nowMs`), joined (then `release` takes the items; `bodies` gives the memory), compressed. */
export async function buildObjectRequest(
  items: readonly EncodedObjectEvent[],
  prefix: string,
  nowMs: number,
  body: ObjectBodyEncoder,
  namer: ObjectNamer,
  compressor: Compressor,
  release: (items: readonly EncodedObjectEvent[]) => void,
  bodies: BodyPool,
): Promise<ObjectRequest> {
  const { body: bytes, events } = await buildObjectBody(items, body, release, compressor, bodies);
  return { events, key: namer.keyFor(prefix, nowMs), body: bytes, bytes: bytes.length };
}
