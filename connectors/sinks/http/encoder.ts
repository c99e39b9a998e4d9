/**
 * Events to body bytes for the `http` sink (as Vector's `http` sink): each event is encoded once, as
 * UTF-8, when it enters the sink; a batch body joins the encoded records per codec.
 */
import { type LogSchemaKeys, createSerializer } from '../../../lib/codecs/encoding.js';
import { createFramer } from '../../../lib/codecs/framing.js';
import type { Utf8Writer } from '../../../lib/codecs/json-bytes.js';
import { EncodedLogEvent, type Event, spend } from '../../../lib/event.js';
import { utf8Slice, utf8Write } from '../../../lib/utf8.js';
import type { Encoded } from '../../shared/request-sink.js';
import type { HttpSinkConfig } from './config.js';
import { BodyPool } from '../../shared/body-pool.js';
import { RecordArena } from '../../shared/record-arena.js';

/** One encoded event: its record `bytes[start, end)`; `size` (UTF-8 bytes, uncompressed) counts against `batch.max_bytes`. */
export interface EncodedEvent extends Encoded {
  readonly bytes: Buffer;
  readonly start: number;
  readonly end: number;
  /** The record as text (bodies framed from texts). */
  readonly text: string;
}

/** A record the sink encoded itself, in its arena. */
class EncodedRecord implements EncodedEvent {
  key: string | undefined = undefined;
  constructor(
    readonly event: Event,
    readonly bytes: Buffer,
    readonly start: number,
    readonly end: number,
  ) {}
  get size(): number {
    return this.end - this.start;
  }
  get text(): string {
    return utf8Slice(this.bytes, this.start, this.end);
  }
}

export interface HttpEncoder {
  readonly contentType: string;
  /** Throws when the codec cannot encode the event. */
  encode(e: Event): EncodedEvent;
  /** Only the event's text, as {@link encode} would hold it, written as UTF-8 into `w` (a worker's records). */
  writeText(e: Event, w: Utf8Writer): void;
  /** The uncompressed body of a batch. */
  body(items: readonly EncodedEvent[]): Buffer;
  /** The batch's body was built and nothing reads its records again: their memory may be reused. */
  release(items: readonly EncodedEvent[]): void;
  /** Nothing reads a body of {@link body} again (its request is over, or it was compressed): its memory may be reused. */
  recycle(body: Buffer): void;
  /**
   * What the body puts between two events when it joins them (json, ndjson, text); undefined when
   * an explicit framing frames each text. Records written back to back with it are copied as one run.
   */
  readonly separator: string | undefined;
}

/** Compiles the encoder once per sink. Each event is written once, as bytes; the body copies runs of them. */
export function createHttpEncoder(config: Pick<HttpSinkConfig, 'encoding' | 'payload_prefix' | 'payload_suffix'> & Partial<Pick<HttpSinkConfig, 'framing'>>, logSchema?: LogSchemaKeys): HttpEncoder {
  const serializer = createSerializer(config.encoding, logSchema);
  const codec = config.encoding.codec;
  const open = `${config.payload_prefix}[`;
  const close = `]${config.payload_suffix}`;
  let body: (items: readonly EncodedEvent[]) => Buffer;
  const bodies = new BodyPool();
  const take = (size: number) => bodies.take(size);
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
    body = (items) => joinRecords(items, open, ',', close, false, take);
  } else if (codec === 'ndjson') {
    // newline between events, none after the last
    separator = '\n';
    body = (items) => joinRecords(items, '', '\n', '', false, take);
  } else {
    // text keeps a newline after every message, the last one included
    separator = '\n';
    body = (items) => joinRecords(items, '', '\n', '', true, take);
  }
  // records are written one after another, each followed by the body's separator, into buffers
  // that stay with them until their body is built (a full one then takes new records): a batch of
  // consecutive records is copied into the body at once
  const arena = new RecordArena();
  const sepByte = separator === undefined ? undefined : separator.charCodeAt(0);
  const sepBytes = sepByte === undefined ? 0 : 1;
  const writeRecord =
    sepByte === undefined
      ? serializer.writeText
      : (event: Event, w: Utf8Writer) => {
          serializer.writeText(event, w);
          w.byte(sepByte);
        };
  return {
    contentType,
    separator,
    encode: (event) => {
      // encoded by a worker thread with this same encoder (docs/threads.md)
      if (event instanceof EncodedLogEvent) return event;
      const start = arena.record(writeRecord, event);
      // the record, without the separator written after it
      const end = arena.writer.pos - sepBytes;
      // the body needs only the record: the event's fields go unless a delivery must settle it
      return new EncodedRecord(spend(event), arena.writer.buf, start, end);
    },
    release: (items) => arena.releaseAll(items),
    writeText: (event, w) => serializer.writeText(event, w),
    body,
    recycle: (b) => bodies.give(b),
  };
}

/**
 * `open`, the records with `sep` between them (and after the last with `trailing`), then `close`,
 * copied into one Buffer of the exact size (each record's UTF-8 size is known), from `alloc`.
 */
function joinRecords(items: readonly EncodedEvent[], open: string, sep: string, close: string, trailing: boolean, alloc: (size: number) => Buffer): Buffer {
  const n = items.length;
  const sepBytes = Buffer.byteLength(sep, 'utf8');
  let total = Buffer.byteLength(open, 'utf8') + Buffer.byteLength(close, 'utf8') + sepBytes * (trailing ? n : Math.max(0, n - 1));
  for (let i = 0; i < n; i++) total += items[i]!.size;
  const buf = alloc(total);
  let at = open ? buf.write(open, 0, 'utf8') : 0;
  const sepByte = sepBytes === 1 ? sep.charCodeAt(0) : -1;
  for (let i = 0; i < n; i++) {
    if (i > 0) at += utf8Write(buf, sep, at);
    const item = items[i]!;
    // records (the sink's own, or a worker's: docs/threads.md) follow each other in their buffer
    // with this separator between them, so a run of them is one copy
    const src = item.bytes;
    let end = item.end;
    while (i + 1 < n) {
      const next = items[i + 1]!;
      if (next.bytes !== src || next.start !== end + 1 || src[end] !== sepByte) break;
      end = next.end;
      i++;
    }
    at += src.copy(buf, at, item.start, end);
  }
  if (trailing && n > 0) at += buf.write(sep, at, 'utf8');
  if (close) at += buf.write(close, at, 'utf8');
  return at === total ? buf : buf.subarray(0, at);
}
