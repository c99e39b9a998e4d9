/** One batch of one key prefix to one object. */
import type { Event } from '../../../lib/event.js';
import type { Compressor } from '../../../lib/net/compression.js';
import type { ObjectBodyEncoder } from '../../shared/object-storage/body.js';
import type { ObjectNamer } from '../../shared/object-storage/naming.js';
import type { Encoded, SinkRequest } from '../../shared/request-sink.js';

/** One encoded event; `size` is its encoded byte length (before compression). */
export interface EncodedObjectEvent extends Encoded {
  readonly text: string;
}

/** An object to write; a retry writes the same name and body again. */
export interface ObjectRequest extends SinkRequest {
  readonly key: string;
  readonly body: Buffer;
}

/** Encodes one event; throws for an event the codec cannot take. */
export function encodeObjectEvent(body: ObjectBodyEncoder, e: Event): EncodedObjectEvent {
  const text = body.encode(e);
  return { event: e, size: Buffer.byteLength(text, 'utf8'), key: undefined, text };
}

/** The object of a batch: named when built (`nowMs`), joined, compressed. */
export async function buildObjectRequest(items: readonly EncodedObjectEvent[], prefix: string, nowMs: number, body: ObjectBodyEncoder, namer: ObjectNamer, compressor: Compressor): Promise<ObjectRequest> {
  const texts = new Array<string>(items.length);
  const events = new Array<Event>(items.length);
  for (let i = 0; i < items.length; i++) {
    texts[i] = items[i]!.text;
    events[i] = items[i]!.event;
  }
  const bytes = await compressor.compress(body.join(texts));
  return { events, key: namer.keyFor(prefix, nowMs), body: bytes, bytes: bytes.length };
}
