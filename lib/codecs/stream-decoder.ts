/**
 * Framing + decoding for a byte-stream source, per connection: chunks in, one EventBatch out per
 * chunk (never per frame). Frame and decode errors are counted in `component_errors_total`
 * (`error_code` `decoder_frame` / `decoder_deserialize`) and logged (the logger rate-limits
 * repeats); they never end the connection or the source.
 */
import type { ComponentContext } from '../component.js';
import type { Event, EventBatch } from '../event.js';
import type { Counter } from '../telemetry/registry.js';
import { Timestamp } from '../value.js';
import { type DecodingConfig, type Deserializer, type Stamp, createDeserializer } from './decoding.js';
import { type FrameDiscard, type FrameSink, type FramingConfig, createDeframer } from './framing.js';
import { TextWindow } from './text-window.js';

/** One connection's decoder. */
export interface StreamDecoder {
  /** Receive time and peer written into the events; set `host`/`port` once per connection. */
  readonly stamp: Stamp;
  /** Decodes a chunk (stamping it with the current time); the events completed by it, maybe none. */
  push(chunk: Buffer): EventBatch;
  /** End of stream or datagram: the unterminated rest, decoded. */
  end(): EventBatch;
  /** Estimated size (eventSize) of the batch last returned by push or end. */
  readonly eventBytes: number;
  /**
   * As {@link push} and {@link end}, but each frame goes to `frame` undecoded: for a caller that
   * writes some frames out as bytes and hands the others to {@link decode}.
   */
  pushFrames(chunk: Buffer, frame: FrameSink): void;
  endFrames(frame: FrameSink): void;
  /** Decodes one frame with the current stamp, as push does (errors counted and logged): appends to `out`, returns the events' size. */
  decode(buf: Buffer, start: number, end: number, out: Event[]): number;
}

/** Codec options of one stream source. */
export interface StreamDecoderOptions {
  readonly framing: FramingConfig;
  readonly decoding: DecodingConfig;
  /** `source_type` value and metadata type. */
  readonly sourceType: string;
  readonly hostKey?: string | undefined;
  readonly portKey?: string | undefined;
  /** Frame limit when the framing group sets no max_length (not for length_delimited); default 8 MiB. */
  readonly defaultMaxLength?: number | undefined;
  /** A source's own frame decoder in place of `decoding` (the syslog source's field layout). */
  readonly deserializer?: Deserializer | undefined;
}

/** Compiles the codecs once; call the result per connection. */
export function streamDecoderFactory(ctx: ComponentContext, opts: StreamDecoderOptions): () => StreamDecoder {
  const schema = ctx.globals.log_schema;
  const deserializer: Deserializer = opts.deserializer ?? createDeserializer(opts.decoding, {
    sourceId: ctx.id,
    sourceType: opts.sourceType,
    logSchema: schema,
    hostKey: opts.hostKey ?? schema.host_key,
    portKey: opts.portKey,
    timezone: ctx.globals.timezone,
  });
  const decodeErrors = ctx.telemetry.counter('component_errors_total', {
    error_code: 'decoder_deserialize',
    error_type: 'parser_failed',
    stage: 'processing',
  });
  const onDiscard = frameDiscardReporter(ctx);
  const now = () => new Timestamp(Math.floor(ctx.scheduler.now()), 0);
  return () => {
    const deframer = createDeframer(opts.framing, { onDiscard, defaultMaxLength: opts.defaultMaxLength });
    const text = new TextWindow();
    const stamp: Stamp = { timestamp: now(), host: undefined, port: undefined, text };
    let batch: Event[] = [];
    let size = 0;
    let lastSize = 0;
    const decode = (buf: Buffer, start: number, end: number, out: Event[]): number => {
      try {
        return deserializer.decode(buf, start, end, stamp, out);
      } catch (err) {
        decodeErrors.add(1);
        ctx.log.warn('Failed deserializing frame.', { error_code: 'decoder_deserialize', error: (err as Error).message });
        return 0;
      }
    };
    const emit: FrameSink = (buf, start, end) => {
      size += decode(buf, start, end, batch);
    };
    const take = (): EventBatch => {
      lastSize = size;
      size = 0;
      if (batch.length === 0) return EMPTY;
      const out = batch;
      batch = [];
      return out;
    };
    return {
      stamp,
      get eventBytes() {
        return lastSize;
      },
      push(chunk) {
        stamp.timestamp = now();
        text.reset();
        deframer.push(chunk, emit);
        return take();
      },
      end() {
        text.reset();
        deframer.end(emit);
        return take();
      },
      pushFrames(chunk, frame) {
        stamp.timestamp = now();
        text.reset();
        deframer.push(chunk, frame);
      },
      endFrames(frame) {
        text.reset();
        deframer.end(frame);
      },
      decode,
    };
  };
}

/** Counts and logs a discarded frame; also used where frames are cut before decoding (lib/threads). */
export function frameDiscardReporter(ctx: ComponentContext): (reason: FrameDiscard, bytes: number) => void {
  const frameErrors = ctx.telemetry.counter('component_errors_total', { error_code: 'decoder_frame', error_type: 'parser_failed', stage: 'processing' });
  return (reason, bytes) => {
    frameErrors.add(1);
    ctx.log.warn(DISCARD_MESSAGES[reason], { error_code: 'decoder_frame', reason, frame_bytes: bytes });
  };
}

/** One log message per discard reason (docs/limits.md); every discard counts in component_errors_total. */
const DISCARD_MESSAGES: Readonly<Record<FrameDiscard, string>> = {
  frame_too_long: 'Discarding frame longer than the framing limit (max_length or length_delimited.max_frame_length).',
  invalid_length: 'Discarding frame with an invalid length.',
  truncated: 'Discarding frame cut off by the end of the stream.',
};

const EMPTY: EventBatch = Object.freeze([]) as unknown as EventBatch;

/**
 * `component_received_bytes_total` of a source (raw bytes from the wire), bound once. The
 * received events, their estimated bytes and the per-batch histogram are counted by the
 * topology for every source, so sources do not count them again.
 */
export function receivedBytesCounter(ctx: ComponentContext, tags?: Record<string, string>): Counter {
  return ctx.telemetry.counter('component_received_bytes_total', tags);
}
