/** One batch of HEC envelopes to one request: the body, then compression. */
import type { Event } from '../../../lib/event.js';
import type { Compressor } from '../../../lib/net/compression.js';
import type { Encoded, SinkRequest } from '../request-sink.js';
import { hecBody } from './envelope.js';

/** One encoded event: its envelope as JSON text. */
export interface EncodedEnvelope extends Encoded {
  readonly text: string;
}

/** A request ready to send, re-sent unchanged on every retry. */
export interface HecRequest extends SinkRequest {
  /** Body as sent (after compression). */
  readonly body: Buffer;
}

/** Builds the request of one batch; compression runs off the event loop. */
export async function buildHecRequest(items: readonly EncodedEnvelope[], compressor: Compressor): Promise<HecRequest> {
  const body = await compressor.compress(hecBody(items));
  const events = new Array<Event>(items.length);
  for (let i = 0; i < items.length; i++) events[i] = items[i]!.event;
  return { events, body, bytes: body.length };
}
