/** A batch of messages to one SendMessageBatch call; entry ids are the batch positions. */
import type { SendMessageBatchRequestEntry } from '@aws-sdk/client-sqs';
import type { Event } from '../../../lib/event.js';
import type { SinkRequest } from '../../shared/request-sink.js';
import type { QueueMessage } from './encoder.js';

/** One SendMessageBatch call; `events[i]` is the event of `entries[i]`. */
export interface QueueRequest extends SinkRequest {
  readonly events: Event[];
  readonly entries: SendMessageBatchRequestEntry[];
}

/** Builds the request of one batch (at most 10 messages and 256 KiB, by the sink's batch limits). */
export function buildQueueRequest(items: readonly QueueMessage[]): QueueRequest {
  const entries: SendMessageBatchRequestEntry[] = new Array(items.length);
  const events: Event[] = new Array(items.length);
  let bytes = 0;
  for (let i = 0; i < items.length; i++) {
    const m = items[i]!;
    const entry: SendMessageBatchRequestEntry = { Id: String(i), MessageBody: m.body };
    if (m.groupId !== undefined) entry.MessageGroupId = m.groupId;
    if (m.deduplicationId !== undefined) entry.MessageDeduplicationId = m.deduplicationId;
    entries[i] = entry;
    events[i] = m.event;
    bytes += m.size;
  }
  return { events, entries, bytes };
}

/** The request of the entries with these ids, in their order (ids are kept: unique within the call). */
export function narrowQueueRequest(req: QueueRequest, ids: ReadonlySet<string>): QueueRequest {
  const entries: SendMessageBatchRequestEntry[] = [];
  const events: Event[] = [];
  let bytes = 0;
  for (let i = 0; i < req.entries.length; i++) {
    const entry = req.entries[i]!;
    if (!ids.has(entry.Id!)) continue;
    entries.push(entry);
    events.push(req.events[i]!);
    bytes += Buffer.byteLength(entry.MessageBody!, 'utf8');
  }
  return { events, entries, bytes };
}
