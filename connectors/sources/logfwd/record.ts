/** The event of one forward record (Vector's legacy layout), fields inserted in the order that decides which wins. */
import { EventMetadata, LogEvent } from '../../../lib/event.js';
import type { ObjectValue, Timestamp } from '../../../lib/value.js';
import { toValue } from './msgpack.js';

/** What every event of a source shares: schema keys, ids. */
export interface RecordShape {
  readonly sourceId: string;
  readonly sourceTypeKey: string;
  readonly timestampKey: string;
  readonly hostKey: string;
}

/**
 * `source_type`, `timestamp`, `tag`, then every record key as one literal top-level key (so a
 * record's own `tag` or `timestamp` replaces them), then `host` only when the record has none.
 * No `message` is invented: it exists only when the record has one.
 */
export function recordEvent(shape: RecordShape, tag: string, time: Timestamp, record: Map<unknown, unknown>, host: string | undefined): LogEvent {
  const fields: ObjectValue = {};
  fields[shape.sourceTypeKey] = 'logfwd';
  fields[shape.timestampKey] = time;
  fields.tag = tag;
  for (const [k, v] of record) if (typeof k === 'string') fields[k] = toValue(v);
  if (host !== undefined && !(shape.hostKey in fields)) fields[shape.hostKey] = host;
  return new LogEvent(fields, new EventMetadata(shape.sourceId, 'logfwd'));
}
