/** Events to object-body texts for the `cloudw_object_storage` sink, encoded once when they enter the sink. */
import type { LogSchemaKeys } from '../../../lib/codecs/encoding.js';
import type { Event } from '../../../lib/event.js';
import { type ObjectBodyEncoder, createObjectBodyEncoder } from '../../shared/object-storage/body.js';
import type { Encoded } from '../../shared/request-sink.js';
import type { CloudwObjectStorageConfig } from './config.js';

/** One encoded event; `size` is its encoded byte length, counted against `batch.max_bytes` before compression. */
export interface EncodedObjectEvent extends Encoded {
  readonly text: string;
}

/** The body encoder of the sink's `encoding` and `framing`. */
export const objectBodyEncoder = (config: Pick<CloudwObjectStorageConfig, 'encoding' | 'framing'>, logSchema?: LogSchemaKeys): ObjectBodyEncoder =>
  createObjectBodyEncoder(config.encoding, config.framing, logSchema);

/** Encodes one event; throws for an event the codec cannot take (the skeleton rejects it alone). */
export function encodeEvent(body: ObjectBodyEncoder, e: Event): EncodedObjectEvent {
  const text = body.encode(e);
  return { event: e, size: Buffer.byteLength(text, 'utf8'), key: undefined, text };
}
