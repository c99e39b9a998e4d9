/**
 * A batch to one PutRecords request (reference sinks §6): each record gzip-compressed on its own
 * when `compression = gzip`. Records without a key, or over the service's 1 MiB limit (data and
 * key), are refused here and never sent.
 */
import type { Event } from '../../../lib/event.js';
import type { Compressor } from '../../../lib/net/compression.js';
import type { SinkRequest } from '../../shared/request-sink.js';
import type { StreamSinkEvents } from './events.js';
import type { StreamRecord } from './encoder.js';

/** The service's limit for one record: data plus partition key. */
export const MAX_RECORD_BYTES = 1024 * 1024;

/** One record as PutRecords takes it. */
export interface PutRecord {
  readonly Data: Uint8Array;
  readonly PartitionKey: string;
}

/** One PutRecords call; `records[i]` carries `events[i]`. */
export interface StreamRequest extends SinkRequest {
  readonly records: readonly PutRecord[];
}

/** Builds the request of one batch. */
export async function buildStreamRequest(items: readonly StreamRecord[], compressor: Compressor, field: string | undefined, events: StreamSinkEvents): Promise<StreamRequest> {
  const records: PutRecord[] = [];
  const sent: Event[] = [];
  const refused: Event[] = [];
  let keyless = 0;
  let bytes = 0;
  const datas = await Promise.all(items.map((i) => (i.partitionKey === undefined ? undefined : compressor.compress(i.data))));
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const data = datas[i];
    if (item.partitionKey === undefined || data === undefined) {
      keyless++;
      refused.push(item.event);
      continue;
    }
    const size = data.length + Buffer.byteLength(item.partitionKey, 'utf8');
    if (size > MAX_RECORD_BYTES) {
      events.recordTooLarge(size, MAX_RECORD_BYTES);
      refused.push(item.event);
      continue;
    }
    records.push({ Data: data, PartitionKey: item.partitionKey });
    sent.push(item.event);
    bytes += size;
  }
  if (keyless > 0) events.partitionKeyMissing(field ?? '', keyless);
  return { events: sent, bytes, records, refused };
}

/** The request for the records at `indexes` of `req`. */
export function subRequest(req: StreamRequest, indexes: readonly number[]): StreamRequest {
  const records: PutRecord[] = [];
  const evs: Event[] = [];
  let bytes = 0;
  for (const i of indexes) {
    const r = req.records[i]!;
    records.push(r);
    evs.push(req.events[i]!);
    bytes += r.Data.length + Buffer.byteLength(r.PartitionKey, 'utf8');
  }
  return { events: evs, bytes, records };
}
