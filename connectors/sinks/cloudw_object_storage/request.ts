/**
 * One batch of one key prefix to one object: the body joined and compressed
 * once, its name and its MD5 fixed, so every retry writes the same object.
 */
import { createHash } from 'node:crypto';
import type { ObjectBodies } from '../../shared/object-storage/build.js';
import type { ObjectNamer } from '../../shared/object-storage/naming.js';
import type { SinkRequest } from '../../shared/request-sink.js';
import type { EncodedObjectEvent } from '../../shared/object-storage/encoded.js';

/** An object ready to write. */
export interface ObjectRequest extends SinkRequest {
  readonly key: string;
  readonly body: Buffer;
  /** base64 MD5 of `body` (`Content-MD5`). */
  readonly md5: string;
  /** The rendered `ssekms_key_id` of this object, when it is a template. */
  readonly kmsKeyId: string | undefined;
}

/** Base64 MD5 of bytes, as `Content-MD5` carries it. */
export const md5Base64 = (b: Buffer): string => createHash('md5').update(b).digest('base64');

/** Builds the object of one batch; `nowMs` is the time part of its name. */
export async function buildObjectRequest(
  items: readonly EncodedObjectEvent[],
  prefix: string,
  kmsKeyId: string | undefined,
  nowMs: number,
  namer: ObjectNamer,
  bodies: ObjectBodies,
): Promise<ObjectRequest> {
  const { body: bytes, events } = await bodies.build(items);
  return { events, bytes: bytes.length, key: namer.keyFor(prefix, nowMs), body: bytes, md5: md5Base64(bytes), kmsKeyId };
}
