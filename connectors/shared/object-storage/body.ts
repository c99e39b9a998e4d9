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

/** Encodes events and joins a batch of them into one body. */
export interface ObjectBodyEncoder {
  /** The body's MIME type: `application/json` for a JSON array, `application/x-ndjson` for JSON lines, else the codec's. */
  readonly contentType: string;
  /** The framing the bodies use (resolved from the codec when none is configured). */
  readonly method: FramingMethod;
  /** One event's encoded text; throws for an event the codec cannot take. */
  encode(e: Event): string;
  /** The texts of one batch as one uncompressed body. */
  join(texts: readonly string[]): Buffer;
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

  let join: (texts: readonly string[]) => Buffer;
  switch (method) {
    case 'length_delimited':
      join = (texts) => {
        let total = 0;
        const lens = new Array<number>(texts.length);
        for (let i = 0; i < texts.length; i++) total += 4 + (lens[i] = Buffer.byteLength(texts[i]!, 'utf8'));
        const out = Buffer.allocUnsafe(total);
        let pos = 0;
        for (let i = 0; i < texts.length; i++) {
          out.writeUInt32BE(lens[i]!, pos); // unsigned 32-bit big-endian length (`length_delimited`)
          pos += 4;
          pos += out.write(texts[i]!, pos, 'utf8');
        }
        return out;
      };
      break;
    case 'octet_counting':
      join = (texts) => Buffer.from(texts.map((t) => `${Buffer.byteLength(t, 'utf8')} ${t}`).join(''), 'utf8');
      break;
    default:
      join = isArray ? (texts) => Buffer.from(`[${texts.join(',')}]`, 'utf8') : (texts) => Buffer.from(texts.join(delimiter), 'utf8');
  }
  return { contentType, method, encode: serializer.serializeText, join };
}
