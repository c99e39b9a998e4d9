/** One batch to one request body: framing, then compression. */
import type { Event } from '../../../lib/event.js';
import type { Compressor } from '../../../lib/net/compression.js';
import type { SinkRequest } from '../../shared/request-sink.js';
import type { EncodedEvent, HttpEncoder } from './encoder.js';

/** A request ready to send, re-sent unchanged on every retry. */
export interface HttpSinkRequest extends SinkRequest {
  /** Body as sent (after compression). */
  readonly body: Buffer;
}

/** Builds the request of one batch; compression runs off the event loop. */
export async function buildRequest(items: readonly EncodedEvent[], encoder: HttpEncoder, compressor: Compressor): Promise<HttpSinkRequest> {
  const raw = encoder.body(items);
  // the records were copied into the body: their buffers may take new ones (retries send the body)
  encoder.release(items);
  const body = await compressor.compress(raw);
  // compressed: the uncompressed body is read no more
  if (body !== raw) encoder.recycle(raw);
  const events = new Array<Event>(items.length);
  for (let i = 0; i < items.length; i++) events[i] = items[i]!.event;
  return { events, body, bytes: body.length };
}
