/**
 * One object body from one batch: each event is encoded once
 * when it enters the sink, and a batch's texts are joined per framing. Objects are messages, not
 * streams: without a framing, `json` writes a JSON array and the delimited framings put the
 * delimiter between events only (no trailing one). `length_delimited` prefixes every event, the
 * last one included, so the object reads back frame by frame.
 */
import { type EncodingConfig, type LogSchemaKeys, DEFAULT_LOG_SCHEMA, createSerializer } from '../../../lib/codecs/encoding.js';
import type { FramingConfig, FramingMethod } from '../../../lib/codecs/framing.js';
import type { Event } from '../../../lib/event.js';
import type { Utf8Writer } from '../../../lib/codecs/json-bytes.js';
import type { RecordBytes } from '../record-arena.js';

/** One event's encoded text, or the bytes of a record a pipeline worker encoded (docs/threads.md). */
export type BodyPart = string | RecordBytes;

/** Encodes events and joins a batch of them into one body. */
export interface ObjectBodyEncoder {
  /** The body's MIME type: `application/json` for a JSON array, `application/x-ndjson` for JSON lines, else the codec's. */
  readonly contentType: string;
  /** The framing the bodies use (resolved from the codec when none is configured). */
  readonly method: FramingMethod;
  /** One event's encoded text; throws for an event the codec cannot take. */
  encode(e: Event): string;
  /** The text of {@link encode} written as UTF-8 into `w` (a pipeline worker's records). */
  writeText(e: Event, w: Utf8Writer): void;
  /** The texts (or records) of one batch as one uncompressed body, in memory from `alloc` (default: new). */
  join(parts: readonly BodyPart[], alloc?: (size: number) => Buffer): Buffer;
}

/** The framing of a message (object) when none is configured: json → `,` in an array, gelf → NUL, the rest → newline. */
function messageFraming(codec: EncodingConfig['codec']): FramingConfig {
  if (codec === 'json') return { method: 'character_delimited', character_delimited: { delimiter: ',' } };
  if (codec === 'gelf') return { method: 'character_delimited', character_delimited: { delimiter: '\0' } };
  return { method: 'newline_delimited' };
}

/** Compiles the body encoder once per sink; throws for the binary `native` codec, which object bodies do not take. */
export function createObjectBodyEncoder(encoding: EncodingConfig, framing: FramingConfig = {}, logSchema: LogSchemaKeys = DEFAULT_LOG_SCHEMA): ObjectBodyEncoder {
  const serializer = createSerializer(encoding, logSchema);
  if (serializer.isBinary) throw new Error(`codec "${encoding.codec}" is binary; object bodies take text codecs`);
  const f = framing.method === undefined ? messageFraming(encoding.codec) : framing;
  const method = f.method ?? 'newline_delimited';
  const delimiter = method === 'newline_delimited' ? '\n' : method === 'character_delimited' ? (f.character_delimited?.delimiter ?? '\n') : '';
  const isArray = encoding.codec === 'json' && method === 'character_delimited' && delimiter === ',';
  const isLines = (encoding.codec === 'json' || encoding.codec === 'ndjson') && method === 'newline_delimited';
  const contentType = isArray ? 'application/json' : isLines ? 'application/x-ndjson' : encoding.codec === 'json' ? 'application/json' : serializer.contentType;

  // one pass over the parts' byte lengths, one copy of each into a body of the exact size
  let join: (parts: readonly BodyPart[], alloc?: (size: number) => Buffer) => Buffer;
  if (method === 'length_delimited') {
    // unsigned 32-bit big-endian length before every event, the last included
    join = (parts, alloc) => joinParts(parts, alloc, '', '', '', (out, at, len) => out.writeUInt32BE(len, at), () => 4);
  } else if (method === 'octet_counting') {
    join = (parts, alloc) => joinParts(parts, alloc, '', '', '', (out, at, len) => at + out.write(`${len} `, at, 'latin1'), (len) => String(len).length + 1);
  } else join = isArray ? (parts, alloc) => joinParts(parts, alloc, '[', ',', ']') : (parts, alloc) => joinParts(parts, alloc, '', delimiter, '');
  return { contentType, method, encode: serializer.serializeText, writeText: serializer.writeText, join };
}

const byteLengthOf = (p: BodyPart): number => (typeof p === 'string' ? Buffer.byteLength(p, 'utf8') : p.end - p.start);

/**
 * `open`, the parts with `sep` between them, `close` (in memory from `alloc`); with `prefix`, each part after its frame
 * header (`headerBytes(len)` long, written by `prefix(out, at, len)`, which returns the end).
 */
function joinParts(
  parts: readonly BodyPart[],
  alloc: ((size: number) => Buffer) | undefined,
  open: string,
  sep: string,
  close: string,
  prefix?: (out: Buffer, at: number, len: number) => number,
  headerBytes?: (len: number) => number,
): Buffer {
  const lens = new Array<number>(parts.length);
  const sepBytes = Buffer.byteLength(sep, 'utf8');
  let total = Buffer.byteLength(open, 'utf8') + Buffer.byteLength(close, 'utf8') + sepBytes * Math.max(0, parts.length - 1);
  for (let i = 0; i < parts.length; i++) total += (lens[i] = byteLengthOf(parts[i]!)) + (headerBytes?.(lens[i]!) ?? 0);
  const out = alloc?.(total) ?? Buffer.allocUnsafe(total);
  let at = out.write(open, 0, 'utf8');
  for (let i = 0; i < parts.length; i++) {
    if (i > 0 && sepBytes > 0) at += out.write(sep, at, 'utf8');
    if (prefix) at = prefix(out, at, lens[i]!);
    const p = parts[i]!;
    at += typeof p === 'string' ? out.write(p, at, 'utf8') : p.bytes.copy(out, at, p.start, p.end);
  }
  out.write(close, at, 'utf8');
  return out;
}

/**
 * The uncompressed body of a batch's items, and their events. The items' records are copied from
 * where they were written and then read no more: `release` gives their memory back (the sink's
 * record arena, or a pipeline worker's answer).
 */
export function joinBatch<I extends RecordBytes & { readonly event: Event }>(
  body: ObjectBodyEncoder,
  items: readonly I[],
  release: (items: readonly I[]) => void,
  alloc?: (size: number) => Buffer,
): { raw: Buffer; events: Event[] } {
  const events = new Array<Event>(items.length);
  for (let i = 0; i < items.length; i++) events[i] = items[i]!.event;
  const raw = body.join(items, alloc);
  release(items);
  return { raw, events };
}
