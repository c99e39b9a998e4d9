/**
 * Events to body bytes for the `http` sink (reference sinks §1): each event is encoded once
 * when it enters the sink; a batch body joins the encoded events per codec.
 */
import { type LogSchemaKeys, createSerializer } from '../../../lib/codecs/encoding.js';
import { createFramer } from '../../../lib/codecs/framing.js';
import { EncodedLogEvent, type Event, spend } from '../../../lib/event.js';
import { utf8Write } from '../../../lib/utf8.js';
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
  /** Only the event's text, as {@link encode} would hold it (a worker writes it as bytes at once). */
  text(e: Event): string;
  /** The uncompressed body of a batch. */
  body(items: readonly EncodedEvent[]): Buffer;
  /**
   * What the body puts between two events when it joins them (json, ndjson, text); undefined when
   * an explicit framing frames each text. Records written back to back with it are copied as one run.
   */
  readonly separator: string | undefined;
}

/** Compiles the encoder once per sink. Events stay text until the body is built: one copy per batch. */
export function createHttpEncoder(config: Pick<HttpSinkConfig, 'encoding' | 'payload_prefix' | 'payload_suffix'> & Partial<Pick<HttpSinkConfig, 'framing'>>, logSchema?: LogSchemaKeys): HttpEncoder {
  const serializer = createSerializer(config.encoding, logSchema);
  const codec = config.encoding.codec;
  const open = `${config.payload_prefix}[`;
  const close = `]${config.payload_suffix}`;
  let body: (items: readonly EncodedEvent[]) => Buffer;
  let separator: string | undefined;
  let contentType = serializer.contentType;
  if (config.framing?.method !== undefined) {
    // an explicit framing, as Vector's http sink frames: every event followed by its delimiter,
    // except that JSON keeps its body shapes (`[a,b]` for ",", no newline after the last line)
    const framer = createFramer(config.framing, codec);
    const isJson = codec !== 'text';
    const isCommaList = isJson && framer.method === 'character_delimited' && config.framing.character_delimited?.delimiter === ',';
    const dropLastNewline = isJson && framer.method === 'newline_delimited';
    if (isJson && framer.method === 'newline_delimited') contentType = 'application/x-ndjson';
    if (isCommaList) contentType = 'application/json';
    body = (items) => {
      const texts = new Array<string>(items.length);
      for (let i = 0; i < items.length; i++) texts[i] = items[i]!.text;
      if (isCommaList) return Buffer.from(open + texts.join(',') + close, 'utf8');
      const framed = framer.frameTexts(texts);
      return dropLastNewline && framed.length > 0 ? framed.subarray(0, framed.length - 1) : framed;
    };
  } else if (codec === 'json') {
    separator = ',';
    body = (items) => joinTexts(items, open, ',', close, false);
  } else if (codec === 'ndjson') {
    // newline between events, none after the last
    separator = '\n';
    body = (items) => joinTexts(items, '', '\n', '', false);
  } else {
    // text keeps a newline after every message, the last one included
    separator = '\n';
    body = (items) => joinTexts(items, '', '\n', '', true);
  }
  return {
    contentType,
    separator,
    encode: (event) => {
      // encoded by a worker thread with this same encoder (docs/threads.md)
      if (event instanceof EncodedLogEvent) return event;
      const text = serializer.serializeText(event);
      // the body needs only the text: the event's fields go unless a delivery must settle it
      return { event: spend(event), size: Buffer.byteLength(text, 'utf8'), key: undefined, text };
    },
    text: (event) => serializer.serializeText(event),
    body,
  };
}

/**
 * `open`, the texts with `sep` between them (and after the last with `trailing`), then `close`,
 * written straight into one Buffer of the exact size: each text's UTF-8 size is already known,
 * so no joined string is built and copied again.
 */
function joinTexts(items: readonly EncodedEvent[], open: string, sep: string, close: string, trailing: boolean): Buffer {
  const n = items.length;
  const sepBytes = Buffer.byteLength(sep, 'utf8');
  let total = Buffer.byteLength(open, 'utf8') + Buffer.byteLength(close, 'utf8') + sepBytes * (trailing ? n : Math.max(0, n - 1));
  for (let i = 0; i < n; i++) total += items[i]!.size;
  const buf = Buffer.allocUnsafe(total);
  let at = open ? buf.write(open, 0, 'utf8') : 0;
  const sepByte = sepBytes === 1 ? sep.charCodeAt(0) : -1;
  for (let i = 0; i < n; i++) {
    if (i > 0) at += buf.write(sep, at, 'utf8');
    const item = items[i]!;
    if (!(item instanceof EncodedLogEvent)) {
      at += utf8Write(buf, item.text, at);
      continue;
    }
    // records a worker encoded are copied as bytes (docs/threads.md); the records of one answer
    // follow each other with this separator between them, so a run of them is one copy
    const src = item.bytes;
    let end = item.end;
    while (i + 1 < n) {
      const next = items[i + 1]!;
      if (!(next instanceof EncodedLogEvent) || next.bytes !== src || next.start !== end + 1 || src[end] !== sepByte) break;
      end = next.end;
      i++;
    }
    at += src.copy(buf, at, item.start, end);
  }
  if (trailing && n > 0) at += buf.write(sep, at, 'utf8');
  if (close) at += buf.write(close, at, 'utf8');
  return at === total ? buf : buf.subarray(0, at);
}
