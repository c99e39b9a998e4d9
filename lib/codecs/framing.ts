/**
 * Framing: how encoded events are delimited on a byte stream (spec 01 §2.3 cloudw_object_storage,
 * spec 02 §2.1). Encoders (`createFramer`) turn encoded texts into one buffer per batch; decoders
 * (`createDeframer`) are incremental: they take chunks as they arrive and call back once per
 * complete frame with (buffer, start, end), so most frames are never copied.
 *
 * `max_length` (character_delimited, newline_delimited, octet_counting): a frame longer than this
 * many bytes is discarded entirely, however many chunks it spans, and reported once.
 */
import * as v from 'valibot';
import { posint, pathItem } from '../config/shared.js';
import type { EncodingCodec } from './encoding.js';

/** Every framing method (`framing.method`). */
export const FRAMING_METHODS = ['bytes', 'character_delimited', 'length_delimited', 'newline_delimited', 'octet_counting'] as const;
/** One framing method name. */
export type FramingMethod = (typeof FRAMING_METHODS)[number];

/** A validated `framing` group; `method` undefined = the component's default for its codec. */
export interface FramingConfig {
  readonly method?: FramingMethod | undefined;
  readonly character_delimited?: { readonly delimiter?: string | undefined; readonly max_length?: number | undefined } | undefined;
  readonly newline_delimited?: { readonly max_length?: number | undefined } | undefined;
  readonly octet_counting?: { readonly max_length?: number | undefined } | undefined;
}

const delimiterSchema = v.pipe(
  v.string(),
  v.check((s) => s.length === 1 && s.charCodeAt(0) < 128, 'must be exactly one ASCII character'),
);

/**
 * The `framing` option group with the methods a component allows. `side = 'decode'` accepts
 * `max_length`; encoders reject it. Without `dflt` the method is left undefined for
 * {@link defaultStreamFraming} to pick per codec.
 */
export function framingSchema<const M extends readonly [FramingMethod, ...FramingMethod[]]>(
  allowed: M,
  dflt?: M[number],
  side: 'decode' | 'encode' = 'decode',
) {
  const maxLength = { max_length: v.optional(posint()) };
  return v.pipe(
    v.strictObject({
      method: (dflt === undefined ? v.optional(v.picklist(allowed)) : v.optional(v.picklist(allowed), dflt as never)) as v.OptionalSchema<
        v.PicklistSchema<M, undefined>,
        undefined
      >,
      character_delimited: v.optional(v.strictObject({ delimiter: v.optional(delimiterSchema), ...maxLength })),
      newline_delimited: v.optional(v.strictObject({ ...maxLength })),
      octet_counting: v.optional(v.strictObject({ ...maxLength })),
    }),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const f = dataset.value as FramingConfig;
      if (f.method === 'character_delimited' && f.character_delimited?.delimiter === undefined)
        addIssue({
          message: 'delimiter is required when method is "character_delimited"',
          path: [pathItem(f, 'character_delimited'), pathItem(f.character_delimited ?? {}, 'delimiter')],
        });
      for (const m of ['character_delimited', 'newline_delimited', 'octet_counting'] as const) {
        const group = f[m];
        if (group === undefined) continue;
        if (f.method !== undefined && f.method !== m)
          addIssue({ message: `applies only when method is "${m}" (method is "${f.method}")`, path: [pathItem(f, m)] });
        else if (side === 'encode' && group.max_length !== undefined)
          addIssue({ message: 'max_length applies only where frames are decoded (sources)', path: [pathItem(f, m), pathItem(group, 'max_length')] });
      }
    }),
  );
}

/** The stream framing a codec implies when none is configured (gelf: NUL-delimited). */
export function defaultStreamFraming(codec: EncodingCodec): FramingConfig {
  if (codec === 'gelf') return { method: 'character_delimited', character_delimited: { delimiter: '\0' } };
  return { method: 'newline_delimited' };
}

/** Frames encoded events into one contiguous buffer. */
export interface Framer {
  readonly method: FramingMethod;
  /** All texts framed in order into one buffer (one allocation per batch). */
  frameTexts(texts: readonly string[]): Buffer;
  /** One payload framed. */
  frame(payload: Buffer): Buffer;
}

/** Builds the encoder side of a framing group (`max_length` does not apply). */
export function createFramer(framing: FramingConfig, codec?: EncodingCodec): Framer {
  const f = framing.method === undefined && codec ? defaultStreamFraming(codec) : framing;
  const method = f.method ?? 'newline_delimited';
  switch (method) {
    case 'bytes':
      return { method, frameTexts: (t) => Buffer.from(t.join(''), 'utf8'), frame: (p) => p };
    case 'newline_delimited':
    case 'character_delimited': {
      const d = method === 'newline_delimited' ? '\n' : (f.character_delimited?.delimiter ?? '\n');
      const db = Buffer.from(d, 'latin1');
      return {
        method,
        frameTexts: (t) => (t.length === 0 ? Buffer.alloc(0) : Buffer.from(t.join(d) + d, 'utf8')),
        frame: (p) => Buffer.concat([p, db]),
      };
    }
    case 'length_delimited':
      return {
        method,
        frameTexts: (t) => {
          let total = 0;
          const lens = new Array<number>(t.length);
          for (let i = 0; i < t.length; i++) total += 4 + (lens[i] = Buffer.byteLength(t[i]!, 'utf8'));
          const out = Buffer.allocUnsafe(total);
          let pos = 0;
          for (let i = 0; i < t.length; i++) {
            out.writeUInt32BE(lens[i]!, pos);
            pos += 4;
            pos += out.write(t[i]!, pos, 'utf8');
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

/** Why a frame was dropped by a decoder. */
export type FrameDiscard = 'frame_too_long' | 'invalid_length';

/** Incremental frame decoder; one per connection (it holds the partial frame). */
export interface Deframer {
  /** Calls `emit` for every frame completed by this chunk; keeps the partial rest. */
  push(chunk: Buffer, emit: FrameSink): void;
  /** End of input (EOF, end of a datagram): emits the unterminated rest as a frame, resets. */
  end(emit: FrameSink): void;
}

/** Callbacks and limits of a decoder. */
export interface DeframerOptions {
  /** Called once per discarded frame. */
  onDiscard?: (reason: FrameDiscard, bytes: number) => void;
  /** Limit used when the framing group sets no max_length (the socket source's `max_length`). */
  defaultMaxLength?: number;
}

/** Builds the decoder side of a framing group; method undefined = bytes. */
export function createDeframer(framing: FramingConfig, opts: DeframerOptions = {}): Deframer {
  const onDiscard = opts.onDiscard ?? (() => {});
  const fallbackMax = opts.defaultMaxLength ?? Infinity;
  switch (framing.method ?? 'bytes') {
    case 'bytes':
      return new BytesDeframer();
    case 'newline_delimited':
      return new DelimitedDeframer(0x0a, framing.newline_delimited?.max_length ?? fallbackMax, onDiscard);
    case 'character_delimited':
      return new DelimitedDeframer(
        (framing.character_delimited?.delimiter ?? '\n').charCodeAt(0),
        framing.character_delimited?.max_length ?? fallbackMax,
        onDiscard,
      );
    case 'length_delimited':
      return new LengthDelimitedDeframer();
    case 'octet_counting':
      return new OctetCountingDeframer(framing.octet_counting?.max_length ?? fallbackMax, onDiscard);
  }
}

/** Whole input = one frame (a stream until EOF, or one datagram). */
class BytesDeframer implements Deframer {
  private parts: Buffer[] = [];
  push(chunk: Buffer): void {
    if (chunk.length > 0) this.parts.push(chunk);
  }
  end(emit: FrameSink): void {
    if (this.parts.length === 0) return;
    const all = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [];
    emit(all, 0, all.length);
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
    private readonly onDiscard: (reason: FrameDiscard, bytes: number) => void,
  ) {}

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

/** Frames carry a 4-byte unsigned big-endian length prefix. */
class LengthDelimitedDeframer implements Deframer {
  private readonly rest = new PendingBytes();
  push(chunk: Buffer, emit: FrameSink): void {
    const buf = this.rest.join(chunk);
    if (!buf) return;
    let pos = 0;
    while (buf.length - pos >= 4) {
      const len = buf.readUInt32BE(pos);
      if (buf.length - pos - 4 < len) {
        this.rest.keep(buf.subarray(pos), 4 + len);
        return;
      }
      emit(buf, pos + 4, pos + 4 + len);
      pos += 4 + len;
    }
    if (pos < buf.length) this.rest.keep(buf.subarray(pos), 4);
  }
  end(): void {
    // a truncated frame at EOF carries no complete payload: dropped
    this.rest.clear();
  }
}

/**
 * The unconsumed tail of earlier chunks. Chunks are only collected until `needed` bytes are
 * there, then joined once, so a large frame spanning many chunks costs one copy, not one per chunk.
 */
class PendingBytes {
  private parts: Buffer[] = [];
  private length = 0;
  private needed = 0;
  /** Keeps `tail`; the next join waits until at least `needed` bytes are pending. */
  keep(tail: Buffer, needed: number): void {
    this.parts = [tail];
    this.length = tail.length;
    this.needed = needed;
  }
  /** The pending bytes followed by `chunk`, or undefined while fewer than needed are there. */
  join(chunk: Buffer): Buffer | undefined {
    if (this.length === 0) return chunk;
    this.parts.push(chunk);
    this.length += chunk.length;
    if (this.length < this.needed) return undefined;
    const all = Buffer.concat(this.parts, this.length);
    this.clear();
    return all;
  }
  get pending(): Buffer | undefined {
    if (this.length === 0) return undefined;
    return this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.length);
  }
  clear(): void {
    this.parts = [];
    this.length = 0;
    this.needed = 0;
  }
}

const SPACE = 0x20;
const NEWLINE = 0x0a;

/**
 * RFC 6587: `LEN SP MSG` when a frame starts with a digit 1-9 (octet counting), otherwise one
 * line up to LF (non-transparent framing), as senders mix both.
 */
class OctetCountingDeframer implements Deframer {
  private readonly rest = new PendingBytes();
  /** Bytes of an oversized counted frame still to skip. */
  private skip = 0;
  /** Skipping an oversized line up to the next LF. */
  private skipToEol = false;
  constructor(
    private readonly maxLength: number,
    private readonly onDiscard: (reason: FrameDiscard, bytes: number) => void,
  ) {}

  push(chunk: Buffer, emit: FrameSink): void {
    const buf = this.rest.join(chunk);
    if (!buf) return;
    const n = buf.length;
    const max = this.maxLength;
    let pos = 0;
    let needed = 1;
    while (pos < n) {
      if (this.skip > 0) {
        const k = Math.min(this.skip, n - pos);
        this.skip -= k;
        pos += k;
        continue;
      }
      if (this.skipToEol) {
        const nl = buf.indexOf(NEWLINE, pos);
        if (nl < 0) return;
        this.skipToEol = false;
        pos = nl + 1;
        continue;
      }
      const first = buf[pos]!;
      if (first >= 0x31 && first <= 0x39) {
        let i = pos;
        let len = 0;
        while (i < n && buf[i]! >= 0x30 && buf[i]! <= 0x39 && i - pos < 16) len = len * 10 + (buf[i++]! - 0x30);
        if (i === n) break; // the length is still arriving
        if (buf[i] !== SPACE) {
          // not a count after all: drop up to and including the next space
          const sp = buf.indexOf(SPACE, i);
          if (sp < 0) {
            if (n - pos <= max) break; // the space may still arrive
            this.onDiscard('frame_too_long', n - pos);
            this.skipToEol = true;
            return;
          }
          this.onDiscard('invalid_length', sp + 1 - pos);
          pos = sp + 1;
          continue;
        }
        const start = i + 1;
        if (len > max) {
          this.onDiscard('frame_too_long', len);
          this.skip = len;
          pos = start;
          continue;
        }
        if (n - start < len) {
          needed = start + len - pos;
          break;
        }
        emit(buf, start, start + len);
        pos = start + len;
        continue;
      }
      const nl = buf.indexOf(NEWLINE, pos);
      if (nl < 0) {
        if (n - pos > max) {
          this.onDiscard('frame_too_long', n - pos);
          this.skipToEol = true;
          return;
        }
        break;
      }
      let end = nl;
      if (end > pos && buf[end - 1] === 0x0d) end--;
      if (end - pos > max) this.onDiscard('frame_too_long', end - pos);
      // blank lines between counted frames carry nothing
      else if (end > pos) emit(buf, pos, end);
      pos = nl + 1;
    }
    if (pos < n) this.rest.keep(buf.subarray(pos), needed);
  }

  end(emit: FrameSink): void {
    const rest = this.rest.pending;
    this.rest.clear();
    this.skip = 0;
    this.skipToEol = false;
    // an unterminated line at EOF is a frame; an incomplete counted frame is not
    if (rest && rest.length > 0 && !(rest[0]! >= 0x31 && rest[0]! <= 0x39)) {
      let end = rest.length;
      if (rest[end - 1] === 0x0d) end--;
      if (end > this.maxLength) this.onDiscard('frame_too_long', end);
      else if (end > 0) emit(rest, 0, end);
    }
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
