/**
 * Deserializers (`decoding.codec`): one frame -> zero or more log events in the
 * global log_schema layout. The source supplies, per chunk, a {@link Stamp} (receive time, peer)
 * and the deserializer adds timestamp, host, port and source_type where the decoded data has none
 * (a JSON object's own `host` wins). A frame that cannot be decoded throws {@link DecodeError};
 * the source counts it and goes on.
 */
import * as v from 'valibot';
import type { DataType } from '../component.js';
import { EventMetadata, LogEvent, type Event, eventSize } from '../event.js';
import { Float, type ObjectValue, type Timestamp } from '../value.js';
import { DEFAULT_LOG_SCHEMA, type LogSchemaKeys } from './encoding.js';
import type { FramingConfig } from './framing.js';
import { type NativeReadOptions, readNativeJson } from './native-json.js';
import { readNative } from './native-proto.js';
import { parseSyslog, syslogToFields } from './syslog.js';
import { utf8Slice } from '../utf8.js';
import type { TextWindow } from './text-window.js';

/** Every deserializer weir has (`decoding.codec` values). */
export const DECODING_CODECS = ['bytes', 'json', 'syslog', 'native_json', 'native'] as const;
/** One deserializer name. */
export type DecodingCodec = (typeof DECODING_CODECS)[number];

/**
 * The framing a stream source uses when the user sets none: length-delimited for `native`
 * (protobuf frames may hold any byte), newline-delimited for every text codec (as Vector).
 */
export function defaultDecodingFraming(codec: DecodingCodec): FramingConfig {
  return codec === 'native' ? { method: 'length_delimited' } : { method: 'newline_delimited' };
}

/** A validated `decoding` group. */
export interface DecodingConfig {
  readonly codec: DecodingCodec;
}

/**
 * What a source decoding with this group emits: the native codecs carry whole events of any type
 * (Vector's sources pipe metrics between processes with them), every other codec makes logs.
 */
export function decodingOutputType(decoding: DecodingConfig): DataType {
  return decoding.codec === 'native' || decoding.codec === 'native_json' ? 'any' : 'log';
}

/** The `decoding` option group with the codecs a source allows (default `bytes`). */
export function decodingSchema<const C extends readonly [DecodingCodec, ...DecodingCodec[]]>(codecs: C, dflt: C[number] = 'bytes' as C[number]) {
  return v.optional(v.strictObject({ codec: v.optional(v.picklist(codecs), dflt as never) as v.OptionalSchema<v.PicklistSchema<C, undefined>, C[number]> }), {
    codec: dflt,
  } as never) as v.OptionalSchema<v.StrictObjectSchema<{ codec: v.OptionalSchema<v.PicklistSchema<C, undefined>, C[number]> }, undefined>, { codec: C[number] }>;
}

/** Thrown for a frame the codec cannot turn into events. */
export class DecodeError extends Error {
  override name = 'DecodeError';
}

/** What the source knows about a chunk; mutate and reuse one per connection. */
export interface Stamp {
  /** Receive time, shared by every event of the chunk (timestamps are immutable). */
  timestamp: Timestamp;
  /** Peer address (or socket path, or host name); undefined = no host field. */
  host: string | undefined;
  /** Peer port; written only when the source has a port key. */
  port: number | undefined;
  /** The connection's decoded window, reset per chunk (text-window.ts); unset: each frame decoded alone. */
  readonly text?: TextWindow | undefined;
}

/** What a source tells its deserializer once at build time. */
export interface DeserializerOptions {
  readonly sourceId: string;
  readonly sourceType: string;
  readonly logSchema?: LogSchemaKeys;
  /** Field for the peer host (source `host_key`); default the log schema's host key. */
  readonly hostKey?: string | undefined;
  /** Field for the peer port (source `port_key`); unset = no port field. */
  readonly portKey?: string | undefined;
  /** Zone of RFC 3164 timestamps (global `timezone`): `local`, an IANA name; default UTC. */
  readonly timezone?: string | undefined;
}

/** A compiled frame decoder. */
export interface Deserializer {
  readonly codec: DecodingCodec;
  /**
   * Appends the events of frame `buf[start, end)` to `out` and returns their estimated size
   * (as {@link eventSize}, computed without walking the fields where the codec knows it);
   * throws {@link DecodeError}.
   */
  decode(buf: Buffer, start: number, end: number, stamp: Stamp, out: Event[]): number;
}

/** Compiles a `decoding` group for one source. */
export function createDeserializer(decoding: DecodingConfig, opts: DeserializerOptions): Deserializer {
  const schema = opts.logSchema ?? DEFAULT_LOG_SCHEMA;
  const mk = schema.message_key;
  const tk = schema.timestamp_key;
  const stk = schema.source_type_key;
  const hk = opts.hostKey ?? schema.host_key;
  const pk = opts.portKey;
  const { sourceId, sourceType } = opts;
  /** Adds the source's fields where the decoded object has none (Vector: insert if absent). */
  const enrich = (f: ObjectValue, stamp: Stamp): void => {
    if (f[tk] === undefined) f[tk] = stamp.timestamp;
    if (hk && stamp.host !== undefined && f[hk] === undefined) f[hk] = stamp.host;
    if (pk && stamp.port !== undefined && f[pk] === undefined) f[pk] = stamp.port;
    if (f[stk] === undefined) f[stk] = sourceType;
  };
  // sizeOfValue of the fields the source adds: key lengths, 8 per scalar, string lengths
  const fixedSize = mk.length + tk.length + 8 + stk.length + sourceType.length;
  switch (decoding.codec) {
    case 'bytes':
      return {
        codec: 'bytes',
        decode(buf, start, end, stamp, out) {
          // one object per frame, keys always written in the same order (stable hidden class)
          const f: ObjectValue = {};
          const message = stamp.text === undefined ? utf8Slice(buf, start, end) : stamp.text.decode(buf, start, end);
          let size = fixedSize + message.length;
          f[mk] = message;
          f[tk] = stamp.timestamp;
          if (hk && stamp.host !== undefined) {
            f[hk] = stamp.host;
            size += hk.length + stamp.host.length;
          }
          if (pk && stamp.port !== undefined) {
            f[pk] = stamp.port;
            size += pk.length + 8;
          }
          f[stk] = sourceType;
          out.push(new LogEvent(f, new EventMetadata(sourceId, sourceType)));
          return size;
        },
      };
    case 'json':
      return {
        codec: 'json',
        decode(buf, start, end, stamp, out) {
          if (end === start) return 0;
          let parsed: unknown;
          try {
            parsed = JSON.parse(utf8Slice(buf, start, end));
          } catch (err) {
            throw new DecodeError(`invalid JSON: ${(err as Error).message}`);
          }
          if (Array.isArray(parsed)) {
            // Vector: an array of objects is one event per element; any other element fails the frame
            for (const x of parsed) if (!isPlainObject(x)) throw new DecodeError('JSON array elements must be objects');
            let size = 0;
            for (const x of parsed as ObjectValue[]) {
              floatify(x);
              enrich(x, stamp);
              const e = new LogEvent(x, new EventMetadata(sourceId, sourceType));
              out.push(e);
              size += eventSize(e);
            }
            return size;
          }
          if (!isPlainObject(parsed)) throw new DecodeError(`JSON must be an object, got ${parsed === null ? 'null' : typeof parsed}`);
          floatify(parsed as ObjectValue);
          enrich(parsed as ObjectValue, stamp);
          const e = new LogEvent(parsed as ObjectValue, new EventMetadata(sourceId, sourceType));
          out.push(e);
          return eventSize(e);
        },
      };
    case 'native_json':
    case 'native': {
      const native: NativeReadOptions = { sourceId, sourceType, messageKey: mk };
      const isProto = decoding.codec === 'native';
      return {
        codec: decoding.codec,
        decode(buf, start, end, stamp, out) {
          const first = out.length;
          try {
            if (isProto) readNative(buf, start, end, native, out);
            else readNativeJson(utf8Slice(buf, start, end), native, out);
          } catch (err) {
            // a frame is decoded whole or not at all
            out.length = first;
            throw new DecodeError(`invalid ${decoding.codec} frame: ${(err as Error).message}`);
          }
          let size = 0;
          for (let i = first; i < out.length; i++) {
            const e = out[i]!;
            // Vector's sources add their fields to logs of any codec, where the event has none
            if (e.type === 'log') enrich(e.fields, stamp);
            size += eventSize(e);
          }
          return size;
        },
      };
    }
    case 'syslog': {
      const timezone = opts.timezone;
      return {
        codec: 'syslog',
        decode(buf, start, end, stamp, out) {
          const text = utf8Slice(buf, start, end);
          if (text.trim().length === 0) throw new DecodeError('empty syslog message');
          const f = syslogToFields(parseSyslog(text, { timezone }), mk, tk);
          enrich(f, stamp);
          const e = new LogEvent(f, new EventMetadata(sourceId, sourceType));
          out.push(e);
          return eventSize(e);
        },
      };
    }
  }
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** In place: non-integral JSON numbers become floats (the value model keeps them apart). */
function floatify(o: ObjectValue | unknown[]): void {
  if (Array.isArray(o)) {
    for (let i = 0; i < o.length; i++) {
      const x = o[i];
      if (typeof x === 'number') {
        if (!Number.isInteger(x)) o[i] = new Float(x);
      } else if (typeof x === 'object' && x !== null) floatify(x as ObjectValue);
    }
    return;
  }
  for (const k in o) {
    const x = o[k];
    if (typeof x === 'number') {
      if (!Number.isInteger(x)) o[k] = new Float(x);
    } else if (typeof x === 'object' && x !== null) floatify(x as ObjectValue);
  }
}
