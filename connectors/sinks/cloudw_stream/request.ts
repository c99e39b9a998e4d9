/**
 * A batch to one PutRecords request: each record gzip-compressed on its own
 * when `compression = gzip`. Records without a key, or over the service's 1 MiB limit (data and
 * key), are refused here and never sent.
 */
import { gzipSync } from 'node:zlib';
import type { Event } from '../../../lib/event.js';
import type { SinkRequest } from '../../shared/request-sink.js';
import type { StreamSinkEvents } from './events.js';
import type { StreamRecord } from './encoder.js';

/** The service's limit for one record: data plus partition key. */
export const MAX_RECORD_BYTES = 1024 * 1024;

/** gzip level 6, the documented level of this sink. */
const GZIP_LEVEL = 6;

/**
 * One record as its own gzip stream. Records are small: synchronously, with a window no larger
 * than the record (the same output, a fraction of zlib's set-up cost), since one thread-pool job
 * and a full-size window per record cost ten times the compression itself.
 */
export function gzipRecord(data: Buffer): Buffer {
  const windowBits = Math.max(9, Math.min(15, Math.ceil(Math.log2(data.length + 1))));
  return gzipSync(data, { level: GZIP_LEVEL, windowBits });
}

/** `compression` as a per-record function. */
export const recordCompressor = (compression: 'none' | 'gzip'): ((data: Buffer) => Buffer) => (compression === 'gzip' ? gzipRecord : (d) => d);

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
export function buildStreamRequest(items: readonly StreamRecord[], compress: (data: Buffer) => Buffer, field: string | undefined, events: StreamSinkEvents): StreamRequest {
  const records: PutRecord[] = [];
  const sent: Event[] = [];
  const refused: Event[] = [];
  let keyless = 0;
  let bytes = 0;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (item.partitionKey === undefined) {
      keyless++;
      refused.push(item.event);
      continue;
    }
    const data = compress(item.data);
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
