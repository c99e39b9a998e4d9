/**
 * Framing: how encoded events are delimited on a byte stream (`framing.*` of cloudw_object_storage
 * and the cloudw_queue source). Encoders (`createFramer`) turn encoded texts into one buffer per batch; decoders
 * (`createDeframer`) are incremental: they take chunks as they arrive and call back once per
 * complete frame with (buffer, start, end), so most frames are never copied.
 *
 * Every decoder is bounded (docs/limits.md): it never holds more than its frame limit for one
 * connection (one byte more for the CR of an octet-counting line). A frame over the limit is discarded entirely, however
 * many chunks it spans, and reported once through `onDiscard`; a length-prefixed frame over the
 * limit is skipped as its bytes stream past, never buffered. A frame cut off by the end of input
 * is reported too (`truncated`).
 */
import * as v from 'valibot';
import { pathItem } from '../config/options/checks.js';
import { posint, uint } from '../config/options/numbers.js';
import type { EncodingCodec } from './encoding.js';
import { type ScratchBuffer, utf8Join, utf8JoinInto, utf8Write } from '../utf8.js';

/** Every framing method (`framing.method`). */
export const FRAMING_METHODS = ['bytes', 'character_delimited', 'length_delimited', 'newline_delimited', 'octet_counting'] as const;
/** One framing method name. */
export type FramingMethod = (typeof FRAMING_METHODS)[number];

/**
 * Frame limit in bytes when neither the framing group nor the source sets one: 8 MiB, Vector's
 * `length_delimited.max_frame_length` default, applied by weir to every framing (Vector leaves
 * the delimited framings unbounded).
 */
export const DEFAULT_MAX_FRAME_LENGTH = 8 * 1024 * 1024;

/** Header layout of `length_delimited` when the group sets none (Vector's defaults: u32 big-endian). */
export const LENGTH_DELIMITED_DEFAULTS = { length_field_length: 4, length_field_offset: 0, length_field_is_big_endian: true } as const;

/** The `length_delimited` options of a decoder (Vector's names). */
export interface LengthDelimitedOptions {
  /** Longest payload in bytes; longer frames are skipped. Default {@link DEFAULT_MAX_FRAME_LENGTH}. */
  readonly max_frame_length?: number | undefined;
  /** Bytes of the length field, 1 to 8. */
  readonly length_field_length?: number | undefined;
  /** Header bytes before the length field; skipped with it, not part of the frame. */
  readonly length_field_offset?: number | undefined;
  readonly length_field_is_big_endian?: boolean | undefined;
}

/** A validated `framing` group; `method` undefined = the component's default for its codec. */
export interface FramingConfig {
  readonly method?: FramingMethod | undefined;
  readonly character_delimited?: { readonly delimiter?: string | undefined; readonly max_length?: number | undefined } | undefined;
  readonly newline_delimited?: { readonly max_length?: number | undefined } | undefined;
  readonly octet_counting?: { readonly max_length?: number | undefined } | undefined;
  readonly length_delimited?: LengthDelimitedOptions | undefined;
}

const delimiterSchema = v.pipe(
  v.string(),
  v.check((s) => s.length === 1 && s.charCodeAt(0) < 128, 'must be exactly one ASCII character'),
);

/** Options that only make sense where frames are decoded; encoders reject them. */
const DECODE_ONLY = ['max_length', 'max_frame_length', 'length_field_length', 'length_field_offset', 'length_field_is_big_endian'] as const;

/**
 * The `framing` option group with the methods a component allows. `side = 'decode'` accepts
 * the limits (`max_length`, `length_delimited.*`); encoders reject them (they always write a
 * u32 big-endian length). Without `dflt` the method is left undefined for
 * {@link defaultStreamFraming} to pick per codec.
 */
export function framingSchema<const M extends readonly [FramingMethod, ...FramingMethod[]]>(
  allowed: M,
  dflt?: M[number],
  side: 'decode' | 'encode' = 'decode',
) {
  const maxLength = {
    max_length: v.optional(v.pipe(posint(), v.description(`Longest frame in bytes; longer frames are discarded and counted. Default: the source's max_length, else ${DEFAULT_MAX_FRAME_LENGTH}.`))),
  };
  return v.pipe(
    v.strictObject({
      method: (dflt === undefined ? v.optional(v.picklist(allowed)) : v.optional(v.picklist(allowed), dflt as never)) as v.OptionalSchema<
        v.PicklistSchema<M, undefined>,
        undefined
      >,
      character_delimited: v.optional(v.strictObject({ delimiter: v.optional(delimiterSchema), ...maxLength })),
      newline_delimited: v.optional(v.strictObject({ ...maxLength })),
      octet_counting: v.optional(v.strictObject({ ...maxLength })),
      length_delimited: v.optional(
        v.strictObject({
          max_frame_length: v.optional(
            v.pipe(posint(), v.description(`Longest payload in bytes; longer frames are skipped unbuffered and counted. Default ${DEFAULT_MAX_FRAME_LENGTH}.`)),
          ),
          length_field_length: v.optional(v.pipe(posint(), v.maxValue(8), v.description('Bytes of the length field, 1 to 8. Default 4.'))),
          length_field_offset: v.optional(v.pipe(uint(), v.description('Header bytes before the length field, skipped with it. Default 0.'))),
          length_field_is_big_endian: v.optional(v.pipe(v.boolean(), v.description('Byte order of the length field. Default true.'))),
        }),
      ),
    }),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const f = dataset.value as FramingConfig;
      if (f.method === 'character_delimited' && f.character_delimited?.delimiter === undefined)
        addIssue({
          message: 'delimiter is required when method is "character_delimited"',
          path: [pathItem(f, 'character_delimited'), pathItem(f.character_delimited ?? {}, 'delimiter')],
        });
      for (const m of ['character_delimited', 'newline_delimited', 'octet_counting', 'length_delimited'] as const) {
        const group = f[m] as Record<string, unknown> | undefined;
        if (group === undefined) continue;
        if (f.method !== undefined && f.method !== m) {
          addIssue({ message: `applies only when method is "${m}" (method is "${f.method}")`, path: [pathItem(f, m)] });
          continue;
        }
        if (side === 'encode')
          for (const k of DECODE_ONLY)
            if (group[k] !== undefined) addIssue({ message: `${k} applies only where frames are decoded (sources)`, path: [pathItem(f, m), pathItem(group, k)] });
      }
    }),
  );
}

/** The stream framing a codec implies when none is configured (gelf: NUL-delimited; native: length-delimited). */
export function defaultStreamFraming(codec: EncodingCodec): FramingConfig {
  if (codec === 'gelf') return { method: 'character_delimited', character_delimited: { delimiter: '\0' } };
  if (codec === 'native') return { method: 'length_delimited' };
  return { method: 'newline_delimited' };
}

/** Frames encoded events into one contiguous buffer. */
export interface Framer {
  readonly method: FramingMethod;
  /**
   * Whether a frame is its text as it is, followed by {@link suffix} when there is one (`bytes` and
   * the delimited methods); false when each frame starts with its length.
   */
  readonly plain: boolean;
  /** The byte after every frame (the delimited methods). */
  readonly suffix?: number;
  /**
   * All texts framed in order into one buffer (one allocation per batch); with `scratch`, delimited
   * and unframed texts are written into it instead (valid until its next use).
   */
  frameTexts(texts: readonly string[], scratch?: ScratchBuffer): Buffer;
  /** One payload framed. */
  frame(payload: Buffer): Buffer;
}

/** Builds the encoder side of a framing group (`max_length` does not apply). */
export function createFramer(framing: FramingConfig, codec?: EncodingCodec): Framer {
  const f = framing.method === undefined && codec ? defaultStreamFraming(codec) : framing;
  const method = f.method ?? 'newline_delimited';
  switch (method) {
    case 'bytes':
      return { method, plain: true, frameTexts: (t, scratch) => (scratch ? utf8JoinInto(scratch, t, undefined) : utf8Join(t, undefined)), frame: (p) => p };
    case 'newline_delimited':
    case 'character_delimited': {
      const d = method === 'newline_delimited' ? '\n' : (f.character_delimited?.delimiter ?? '\n');
      // the schema allows one ASCII character
      const db = Buffer.from(d, 'latin1');
      return {
        method,
        plain: true,
        suffix: db[0]!,
        frameTexts: (t, scratch) => (scratch ? utf8JoinInto(scratch, t, db[0]!) : utf8Join(t, db[0]!)),
        frame: (p) => Buffer.concat([p, db]),
      };
    }
    case 'length_delimited':
      return {
        method,
        plain: false,
        frameTexts: (t) => {
          let total = 0;
          const lens = new Array<number>(t.length);
          for (let i = 0; i < t.length; i++) total += 4 + (lens[i] = Buffer.byteLength(t[i]!, 'utf8'));
          const out = Buffer.allocUnsafe(total);
          let pos = 0;
          for (let i = 0; i < t.length; i++) {
            out.writeUInt32BE(lens[i]!, pos);
            pos += 4;
            pos += utf8Write(out, t[i]!, pos);
          }
          return out;
        },
        frame: (p) => {
          const h = Buffer.allocUnsafe(4);
          h.writeUInt32BE(p.length, 0);
          return Buffer.concat([h, p]);
        },
      };
    case 'octet_counting':
      return {
        method,
        plain: false,
        frameTexts: (t) => {
          let s = '';
          for (let i = 0; i < t.length; i++) s += Buffer.byteLength(t[i]!, 'utf8') + ' ' + t[i];
          return Buffer.from(s, 'utf8');
        },
        frame: (p) => Buffer.concat([Buffer.from(`${p.length} `, 'latin1'), p]),
      };
  }
}

/** Receives one frame: bytes `buf[start, end)`; valid only during the call. */
export type FrameSink = (buf: Buffer, start: number, end: number) => void;

/** Why a decoder dropped bytes: a frame over the limit, a malformed count, or a frame cut off by the end of input. */
export type FrameDiscard = 'frame_too_long' | 'invalid_length' | 'truncated';

/** Incremental frame decoder; one per connection (it holds the partial frame). */
export interface Deframer {
  /** Calls `emit` for every frame completed by this chunk; keeps the partial rest. */
  push(chunk: Buffer, emit: FrameSink): void;
  /**
   * End of input (EOF, end of a datagram): emits the unterminated rest as a frame where the
   * framing allows (bytes, delimited, an octet-counting line), reports a cut-off frame as
   * `truncated`, and resets.
   */
  end(emit: FrameSink): void;
  /** Bytes held for the incomplete frame; never more than the frame limit (+1 for a CR on octet-counting lines). */
  readonly bufferedBytes: number;
}

/** Callbacks and limits of a decoder. */
export interface DeframerOptions {
  /** Called once per discarded frame with the frame's (announced or seen) size. */
  onDiscard?: (reason: FrameDiscard, bytes: number) => void;
  /**
   * Limit for `bytes`, `character_delimited`, `newline_delimited` and `octet_counting` when the
   * framing group sets no max_length (the socket and stdin sources' `max_length`); default
   * {@link DEFAULT_MAX_FRAME_LENGTH}. `length_delimited` has its own `max_frame_length`.
   */
  defaultMaxLength?: number | undefined;
}

type OnDiscard = (reason: FrameDiscard, bytes: number) => void;

/** Builds the decoder side of a framing group; method undefined = bytes. Every decoder is bounded. */
export function createDeframer(framing: FramingConfig, opts: DeframerOptions = {}): Deframer {
  const onDiscard = opts.onDiscard ?? (() => {});
  const fallbackMax = opts.defaultMaxLength ?? DEFAULT_MAX_FRAME_LENGTH;
  switch (framing.method ?? 'bytes') {
    case 'bytes':
      return new BytesDeframer(fallbackMax, onDiscard);
    case 'newline_delimited':
      return new DelimitedDeframer(0x0a, framing.newline_delimited?.max_length ?? fallbackMax, onDiscard);
    case 'character_delimited':
      return new DelimitedDeframer(
        (framing.character_delimited?.delimiter ?? '\n').charCodeAt(0),
        framing.character_delimited?.max_length ?? fallbackMax,
        onDiscard,
      );
    case 'length_delimited':
      return new LengthDelimitedDeframer(framing.length_delimited ?? {}, onDiscard);
    case 'octet_counting':
      return new OctetCountingDeframer(framing.octet_counting?.max_length ?? fallbackMax, onDiscard);
  }
}

/** Chunks (or their tails) collected for one frame; joined once when the frame is complete. */
class Parts {
  private list: Buffer[] = [];
  length = 0;
  add(part: Buffer): void {
    if (part.length === 0) return;
    this.list.push(part);
    this.length += part.length;
  }
  /** The collected bytes as one buffer (a copy only when there are several parts); clears. */
  take(): Buffer {
    const all = this.list.length === 1 ? this.list[0]! : Buffer.concat(this.list, this.length);
    this.clear();
    return all;
  }
  clear(): void {
    this.list = [];
    this.length = 0;
  }
}

const EMPTY = Buffer.alloc(0);

/** Whole input = one frame (a stream until EOF, or one datagram); over the limit, the whole input is discarded. */
class BytesDeframer implements Deframer {
  private readonly parts = new Parts();
  private discarding = false;
  constructor(
    private readonly maxLength: number,
    private readonly onDiscard: OnDiscard,
  ) {}
  get bufferedBytes(): number {
    return this.parts.length;
  }
  push(chunk: Buffer): void {
    if (this.discarding) return;
    const total = this.parts.length + chunk.length;
    if (total > this.maxLength) {
      // counted once; the rest of the input up to EOF goes with it
      this.parts.clear();
      this.discarding = true;
      this.onDiscard('frame_too_long', total);
      return;
    }
    this.parts.add(chunk);
  }
  end(emit: FrameSink): void {
    if (!this.discarding && this.parts.length > 0) {
      const all = this.parts.take();
      emit(all, 0, all.length);
    }
    this.parts.clear();
    this.discarding = false;
  }
}

/** Frames end at a delimiter byte; the delimiter is not part of the frame. */
class DelimitedDeframer implements Deframer {
  private pending: Buffer[] = [];
  private pendingLength = 0;
  private discarding = false;
  constructor(
    private readonly delimiter: number,
    private readonly maxLength: number,
    private readonly onDiscard: OnDiscard,
  ) {}

  get bufferedBytes(): number {
    return this.pendingLength;
  }

  push(chunk: Buffer, emit: FrameSink): void {
    const d = this.delimiter;
    const max = this.maxLength;
    let pos = 0;
    if (this.discarding || this.pendingLength > 0) {
      const idx = chunk.indexOf(d);
      if (idx < 0) {
        if (this.discarding) return;
        if (this.pendingLength + chunk.length > max) return this.startDiscard(this.pendingLength + chunk.length);
        this.pending.push(chunk);
        this.pendingLength += chunk.length;
        return;
      }
      if (this.discarding) {
        this.discarding = false;
      } else if (this.pendingLength + idx > max) {
        this.onDiscard('frame_too_long', this.pendingLength + idx);
      } else {
        this.pending.push(chunk.subarray(0, idx));
        const frame = Buffer.concat(this.pending, this.pendingLength + idx);
        emit(frame, 0, frame.length);
      }
      this.pending = [];
      this.pendingLength = 0;
      pos = idx + 1;
    }
    const n = chunk.length;
    // hot loop: memchr via indexOf, no per-byte JS
    for (let idx = chunk.indexOf(d, pos); idx >= 0; idx = chunk.indexOf(d, pos)) {
      if (idx - pos > max) this.onDiscard('frame_too_long', idx - pos);
      else emit(chunk, pos, idx);
      pos = idx + 1;
    }
    if (pos < n) {
      if (n - pos > max) return this.startDiscard(n - pos);
      this.pending.push(pos === 0 ? chunk : chunk.subarray(pos));
      this.pendingLength = n - pos;
    }
  }

  private startDiscard(bytes: number): void {
    this.pending = [];
    this.pendingLength = 0;
    this.discarding = true;
    this.onDiscard('frame_too_long', bytes);
  }

  /** The unterminated rest is a frame (Vector does the same), so nothing is ever truncated here. */
  end(emit: FrameSink): void {
    if (!this.discarding && this.pendingLength > 0) {
      const frame = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingLength);
      emit(frame, 0, frame.length);
    }
    this.pending = [];
    this.pendingLength = 0;
    this.discarding = false;
  }
}

/** Reads a length field of 1 to 8 bytes as a number (exact up to 2^53, far past any frame limit). */
type LengthReader = (buf: Buffer, at: number) => number;

const TWO_32 = 2 ** 32;

/** The reader for one header layout, chosen once per decoder. */
function lengthReader(bytes: number, bigEndian: boolean): LengthReader {
  if (bytes === 4) return bigEndian ? (b, at) => b.readUInt32BE(at) : (b, at) => b.readUInt32LE(at);
  if (bytes <= 6) return bigEndian ? (b, at) => b.readUIntBE(at, bytes) : (b, at) => b.readUIntLE(at, bytes);
  // 7 or 8 bytes: readUInt* stops at 6, so the high and low words are read apart
  const high = bytes - 4;
  return bigEndian ? (b, at) => b.readUIntBE(at, high) * TWO_32 + b.readUInt32BE(at + high) : (b, at) => b.readUInt32LE(at) + b.readUIntLE(at + 4, high) * TWO_32;
}

/**
 * Frames carry a length prefix (default u32 big-endian), optionally after `length_field_offset`
 * header bytes; the frame is the payload after the header. A prefix over `max_frame_length` is
 * reported and its announced bytes skipped as they arrive (no allocation), then decoding resumes
 * at the next header. Memory per connection: the payload collected so far, at most the limit.
 */
class LengthDelimitedDeframer implements Deframer {
  private readonly maxLength: number;
  private readonly fieldOffset: number;
  private readonly headerLength: number;
  private readonly readLength: LengthReader;
  /** The length field's bytes when the header spans chunks. */
  private readonly field: Buffer;
  /** Header bytes of the current frame seen so far (offset and field). */
  private headerSeen = 0;
  /** Announced payload length of the current frame; -1 while reading its header. */
  private payloadLength = -1;
  private readonly payload = new Parts();
  /** Bytes of an oversized frame still to pass over. */
  private skip = 0;
  constructor(
    o: LengthDelimitedOptions,
    private readonly onDiscard: OnDiscard,
  ) {
    const d = LENGTH_DELIMITED_DEFAULTS;
    const fieldLength = o.length_field_length ?? d.length_field_length;
    this.maxLength = o.max_frame_length ?? DEFAULT_MAX_FRAME_LENGTH;
    this.fieldOffset = o.length_field_offset ?? d.length_field_offset;
    this.headerLength = this.fieldOffset + fieldLength;
    this.readLength = lengthReader(fieldLength, o.length_field_is_big_endian ?? d.length_field_is_big_endian);
    this.field = Buffer.alloc(fieldLength);
  }

  get bufferedBytes(): number {
    return this.payload.length;
  }

  push(chunk: Buffer, emit: FrameSink): void {
    const n = chunk.length;
    let pos = 0;
    while (pos < n) {
      if (this.skip > 0) {
        const k = Math.min(this.skip, n - pos);
        this.skip -= k;
        pos += k;
        continue;
      }
      if (this.payloadLength < 0) {
        let len: number;
        if (this.headerSeen === 0 && n - pos >= this.headerLength) {
          len = this.readLength(chunk, pos + this.fieldOffset);
          pos += this.headerLength;
        } else {
          // the header spans chunks: copy just the length field's bytes, skip the offset bytes
          const k = Math.min(this.headerLength - this.headerSeen, n - pos);
          for (let i = 0; i < k; i++) {
            const at = this.headerSeen + i - this.fieldOffset;
            if (at >= 0) this.field[at] = chunk[pos + i]!;
          }
          this.headerSeen += k;
          pos += k;
          if (this.headerSeen < this.headerLength) return;
          this.headerSeen = 0;
          len = this.readLength(this.field, 0);
        }
        if (len > this.maxLength) {
          this.onDiscard('frame_too_long', len);
          this.skip = len;
        } else if (len === 0) {
          emit(EMPTY, 0, 0);
        } else {
          this.payloadLength = len;
        }
        continue;
      }
      const need = this.payloadLength - this.payload.length;
      if (this.payload.length === 0 && n - pos >= need) {
        // the whole payload is in this chunk: no copy
        emit(chunk, pos, pos + need);
        pos += need;
        this.payloadLength = -1;
        continue;
      }
      const k = Math.min(need, n - pos);
      this.payload.add(pos === 0 && k === n ? chunk : chunk.subarray(pos, pos + k));
      pos += k;
      if (this.payload.length === this.payloadLength) {
        const frame = this.payload.take();
        this.payloadLength = -1;
        emit(frame, 0, frame.length);
      }
    }
  }

  end(): void {
    // a frame over the limit was reported when its header arrived; a cut-off one is reported now
    if (this.headerSeen > 0 || this.payloadLength >= 0) this.onDiscard('truncated', this.headerSeen + this.payload.length);
    this.payload.clear();
    this.headerSeen = 0;
    this.payloadLength = -1;
    this.skip = 0;
  }
}

const SPACE = 0x20;
const NEWLINE = 0x0a;
const CR = 0x0d;

// OctetCountingDeframer states
const START = 0;
/** Reading the decimal count. */
const COUNT = 1;
/** A count that turned out not to be one: dropped up to and including the next space. */
const BAD_COUNT = 2;
const PAYLOAD = 3;
/** Passing over the announced bytes of an oversized counted frame. */
const SKIP = 4;
/** A non-transparent frame: one line up to LF. */
const LINE = 5;
/** Passing over an oversized line up to the next LF. */
const SKIP_LINE = 6;

/**
 * RFC 6587: `LEN SP MSG` when a frame starts with a digit 1-9 (octet counting), otherwise one
 * line up to LF (non-transparent framing), as senders mix both. A state machine over each chunk,
 * so no byte is scanned twice and nothing but the current frame's payload or line is held.
 */
class OctetCountingDeframer implements Deframer {
  private state = START;
  /** Count digits read so far (at most 16) and their value. */
  private digits = 0;
  private count = 0;
  /** Bytes of a bad count consumed so far. */
  private consumed = 0;
  private payloadLength = 0;
  private skip = 0;
  private readonly parts = new Parts();
  constructor(
    private readonly maxLength: number,
    private readonly onDiscard: OnDiscard,
  ) {}

  get bufferedBytes(): number {
    return this.parts.length;
  }

  push(chunk: Buffer, emit: FrameSink): void {
    const n = chunk.length;
    const max = this.maxLength;
    let pos = 0;
    while (pos < n) {
      switch (this.state) {
        case START: {
          const first = chunk[pos]!;
          this.state = first >= 0x31 && first <= 0x39 ? COUNT : LINE;
          this.digits = 0;
          this.count = 0;
          break;
        }
        case COUNT: {
          for (let c = chunk[pos]!; c >= 0x30 && c <= 0x39 && this.digits < 16; c = chunk[pos]!) {
            this.count = this.count * 10 + (c - 0x30);
            this.digits++;
            if (++pos === n) return; // the count is still arriving
          }
          if (chunk[pos] !== SPACE) {
            this.state = BAD_COUNT;
            this.consumed = this.digits;
            break;
          }
          pos++;
          if (this.count > max) {
            this.onDiscard('frame_too_long', this.count);
            this.skip = this.count;
            this.state = SKIP;
          } else {
            this.payloadLength = this.count;
            this.state = PAYLOAD;
          }
          break;
        }
        case BAD_COUNT: {
          // the space must come within max bytes of the frame start, however the input is chunked
          if (this.consumed > max) {
            this.onDiscard('frame_too_long', this.consumed);
            this.state = SKIP_LINE;
            break;
          }
          const stop = Math.min(n, pos + (max - this.consumed) + 1);
          const sp = chunk.subarray(pos, stop).indexOf(SPACE);
          if (sp >= 0) {
            this.consumed += sp + 1;
            pos += sp + 1;
            this.onDiscard('invalid_length', this.consumed);
            this.state = START;
            break;
          }
          this.consumed += stop - pos;
          pos = stop;
          if (this.consumed > max) {
            this.onDiscard('frame_too_long', this.consumed);
            this.state = SKIP_LINE;
          }
          break;
        }
        case PAYLOAD: {
          const need = this.payloadLength - this.parts.length;
          if (this.parts.length === 0 && n - pos >= need) {
            emit(chunk, pos, pos + need);
            pos += need;
            this.state = START;
            break;
          }
          const k = Math.min(need, n - pos);
          this.parts.add(chunk.subarray(pos, pos + k));
          pos += k;
          if (this.parts.length === this.payloadLength) {
            const frame = this.parts.take();
            this.state = START;
            emit(frame, 0, frame.length);
          }
          break;
        }
        case SKIP: {
          const k = Math.min(this.skip, n - pos);
          this.skip -= k;
          pos += k;
          if (this.skip === 0) this.state = START;
          break;
        }
        case LINE: {
          const nl = chunk.indexOf(NEWLINE, pos);
          if (nl < 0) {
            // one byte over max may still be a CR that is not part of the frame
            if (this.parts.length + (n - pos) > max + 1) {
              this.onDiscard('frame_too_long', this.parts.length + (n - pos));
              this.parts.clear();
              this.state = SKIP_LINE;
            } else this.parts.add(chunk.subarray(pos));
            return;
          }
          if (this.parts.length === 0) this.emitLine(chunk, pos, nl, emit);
          else if (this.parts.length + (nl - pos) > max + 1) {
            // over the limit whatever its last byte: discarded without joining the parts
            this.onDiscard('frame_too_long', this.parts.length + (nl - pos));
            this.parts.clear();
          } else {
            this.parts.add(chunk.subarray(pos, nl));
            const line = this.parts.take();
            this.emitLine(line, 0, line.length, emit);
          }
          pos = nl + 1;
          this.state = START;
          break;
        }
        case SKIP_LINE: {
          const nl = chunk.indexOf(NEWLINE, pos);
          if (nl < 0) return;
          pos = nl + 1;
          this.state = START;
          break;
        }
      }
    }
  }

  /** A line without its CR; blank lines between counted frames carry nothing. */
  private emitLine(buf: Buffer, start: number, end: number, emit: FrameSink): void {
    if (end > start && buf[end - 1] === CR) end--;
    if (end - start > this.maxLength) this.onDiscard('frame_too_long', end - start);
    else if (end > start) emit(buf, start, end);
  }

  end(emit: FrameSink): void {
    switch (this.state) {
      case LINE: {
        // an unterminated line at EOF is a frame
        const line = this.parts.take();
        this.emitLine(line, 0, line.length, emit);
        break;
      }
      case COUNT:
        this.onDiscard('truncated', this.digits);
        break;
      case PAYLOAD:
        this.onDiscard('truncated', this.parts.length);
        break;
      case BAD_COUNT:
        this.onDiscard('invalid_length', this.consumed);
        break;
    }
    this.parts.clear();
    this.state = START;
    this.skip = 0;
  }
}

/** Test and tooling helper: all frames of the given chunks, as copies. */
export function deframeAll(deframer: Deframer, chunks: readonly Buffer[], eof = true): Buffer[] {
  const out: Buffer[] = [];
  const emit: FrameSink = (b, s, e) => out.push(Buffer.from(b.subarray(s, e)));
  for (const c of chunks) deframer.push(c, emit);
  if (eof) deframer.end(emit);
  return out;
}
