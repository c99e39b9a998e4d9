/** One batch to one publish request: `{"messages":[…]}`. */
import type { Event } from '../../../lib/event.js';
import type { SinkRequest } from '../../shared/request-sink.js';
import type { EncodedMessage } from './encoder.js';

/** A publish request; the messages are kept so that a partial answer can resend the rest. */
export interface PublishRequest extends SinkRequest {
  readonly body: Buffer;
  readonly items: readonly EncodedMessage[];
}

/** Builds the request of `items` (in order; the service answers one message id per message, in order). */
export function buildPublishRequest(items: readonly EncodedMessage[]): PublishRequest {
  const events = new Array<Event>(items.length);
  let s = '{"messages":[';
  for (let i = 0; i < items.length; i++) {
    s += i > 0 ? ',' + items[i]!.json : items[i]!.json;
    events[i] = items[i]!.event;
  }
  const body = Buffer.from(s + ']}', 'utf8');
  return { events, items, body, bytes: body.length };
}

/**
 * The message ids of a 2xx answer. The service publishes a request whole; fewer ids than messages
 * means the tail was not published, so only the tail is sent again.
 */
export function publishedCount(body: string): number | undefined {
  try {
    const ids = (JSON.parse(body) as { messageIds?: unknown }).messageIds;
    return Array.isArray(ids) ? ids.length : undefined;
  } catch {
    return undefined;
  }
}
