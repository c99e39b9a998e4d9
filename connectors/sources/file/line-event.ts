/**
 * The event the `file` source makes of one line, in a module of its own: the main thread and the
 * pipeline workers (decoder.ts) build it alike, so their events hold the same fields in the same
 * order and encode to the same bytes.
 */
import type { GlobalOptions } from '../../../lib/config/global.js';
import { EventMetadata, LogEvent } from '../../../lib/event.js';
import type { ObjectValue, Timestamp } from '../../../lib/value.js';

/** Where each event field goes. */
export interface LineKeys {
  readonly message: string;
  readonly timestamp: string;
  readonly sourceType: string;
  readonly host: string | undefined;
  readonly file: string | undefined;
  readonly offset: string | undefined;
}

/** The options the keys are read from. */
export interface LineKeyOptions {
  readonly file_key: string;
  readonly host_key?: string | undefined;
  readonly offset_key?: string | undefined;
}

const orNone = (key: string | undefined): string | undefined => (key === '' ? undefined : key);

/** The field names of a configuration; as in Vector, an empty key leaves its field out. */
export function lineKeys(config: LineKeyOptions, schema: GlobalOptions['log_schema']): LineKeys {
  return {
    message: schema.message_key,
    timestamp: schema.timestamp_key,
    sourceType: schema.source_type_key,
    host: orNone(config.host_key ?? schema.host_key),
    file: orNone(config.file_key),
    offset: orNone(config.offset_key),
  };
}

/** One line's event: its text, the file's path, the host, the line's byte offset in the file and the read time. */
export function lineEvent(k: LineKeys, sourceId: string, path: string, host: string, message: string, offset: number, stamp: Timestamp): LogEvent {
  const fields: ObjectValue = {};
  fields[k.message] = message;
  if (k.file !== undefined) fields[k.file] = path;
  if (k.host !== undefined) fields[k.host] = host;
  if (k.offset !== undefined) fields[k.offset] = offset;
  fields[k.sourceType] = 'file';
  fields[k.timestamp] = stamp;
  return new LogEvent(fields, new EventMetadata(sourceId, 'file'));
}
