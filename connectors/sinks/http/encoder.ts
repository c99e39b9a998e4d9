/**
 * Events to body bytes for the `http` sink (reference sinks §1): each event is encoded once
 * when it enters the sink; a batch body joins the encoded events per codec.
 */
import { type LogSchemaKeys, createSerializer } from '../../../lib/codecs/encoding.js';
import type { Event } from '../../../lib/event.js';
import type { Encoded } from '../../shared/request-sink.js';
import type { HttpSinkConfig } from './config.js';

/** One encoded event; `size` (UTF-8 bytes, uncompressed) counts against `batch.max_bytes`. */
export interface EncodedEvent extends Encoded {
  readonly text: string;
}

export interface HttpEncoder {
  readonly contentType: string;
  /** Throws when the codec cannot encode the event. */
  encode(e: Event): EncodedEvent;
  /** The uncompressed body of a batch. */
  body(items: readonly EncodedEvent[]): Buffer;
}

/** Compiles the encoder once per sink. Events stay text until the body is built: one copy per batch. */
export function createHttpEncoder(config: Pick<HttpSinkConfig, 'encoding' | 'payload_prefix' | 'payload_suffix'>, logSchema?: LogSchemaKeys): HttpEncoder {
  const serializer = createSerializer(config.encoding, logSchema);
  const codec = config.encoding.codec;
  const open = `${config.payload_prefix}[`;
  const close = `]${config.payload_suffix}`;
  let body: (items: readonly EncodedEvent[]) => Buffer;
  if (codec === 'json') {
    body = (items) => {
      let s = open;
      for (let i = 0; i < items.length; i++) s += i > 0 ? ',' + items[i]!.text : items[i]!.text;
      return Buffer.from(s + close, 'utf8');
    };
  } else if (codec === 'ndjson') {
    // newline between events, none after the last
    body = (items) => {
      let s = '';
      for (let i = 0; i < items.length; i++) s += i > 0 ? '\n' + items[i]!.text : items[i]!.text;
      return Buffer.from(s, 'utf8');
    };
  } else {
    // text keeps a newline after every message, the last one included
    body = (items) => {
      let s = '';
      for (let i = 0; i < items.length; i++) s += items[i]!.text + '\n';
      return Buffer.from(s, 'utf8');
    };
  }
  return {
    contentType: serializer.contentType,
    encode: (event) => {
      const text = serializer.serializeText(event);
      return { event, size: Buffer.byteLength(text, 'utf8'), key: undefined, text };
    },
    body,
  };
}
