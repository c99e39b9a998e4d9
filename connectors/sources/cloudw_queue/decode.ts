/**
 * One message body to events (as Vector's aws_sqs source): the body goes through the framing (default
 * `bytes`: the whole body is one frame) and the codec; every event gets `timestamp` = the message's
 * SentTimestamp where the decoded data has none. Frames over `max_length` and frames the codec
 * cannot decode are counted in `component_errors_total` and skipped.
 */
import { type Deframer, type Deserializer, type FrameDiscard, type FrameSink, type Stamp, createDeframer, createDeserializer } from '../../../lib/codecs/index.js';
import type { ComponentContext } from '../../../lib/component.js';
import type { Event } from '../../../lib/event.js';
import { Timestamp } from '../../../lib/value.js';
import type { CloudwQueueSourceConfig } from './config.js';

/** Decodes one body at a time; appends the events to `out` and returns how many it added. */
export type MessageDecoder = (body: Buffer, sent: Timestamp, out: Event[]) => number;

const DISCARD_MESSAGES: Readonly<Record<FrameDiscard, string>> = {
  frame_too_long: 'Discarding frame longer than the framing limit (max_length or length_delimited.max_frame_length).',
  invalid_length: 'Discarding frame with an invalid length.',
  truncated: 'Discarding frame cut off by the end of the message.',
};

/** Compiles the framing and codec once per source. */
export function createMessageDecoder(config: Pick<CloudwQueueSourceConfig, 'framing' | 'decoding'>, ctx: Pick<ComponentContext, 'id' | 'globals' | 'telemetry' | 'log'>): MessageDecoder {
  const deserializer: Deserializer = createDeserializer(config.decoding, {
    sourceId: ctx.id,
    sourceType: 'cloudw_queue',
    logSchema: ctx.globals.log_schema,
    timezone: ctx.globals.timezone,
  });
  const frameErrors = ctx.telemetry.counter('component_errors_total', { error_code: 'decoder_frame', error_type: 'parser_failed', stage: 'processing' });
  const decodeErrors = ctx.telemetry.counter('component_errors_total', { error_code: 'decoder_deserialize', error_type: 'parser_failed', stage: 'processing' });
  const deframer: Deframer = createDeframer(config.framing, {
    onDiscard: (reason, bytes) => {
      frameErrors.add();
      ctx.log.warn(DISCARD_MESSAGES[reason], { error_code: 'decoder_frame', reason, frame_bytes: bytes });
    },
  });
  // no host or port: a queue message has no peer
  const stamp: Stamp = { timestamp: new Timestamp(0), host: undefined, port: undefined };
  let out: Event[] = [];
  const emit: FrameSink = (buf, start, end) => {
    try {
      deserializer.decode(buf, start, end, stamp, out);
    } catch (err) {
      decodeErrors.add();
      ctx.log.warn('Failed deserializing frame.', { error_code: 'decoder_deserialize', error: (err as Error).message });
    }
  };
  return (body, sent, into) => {
    const before = into.length;
    stamp.timestamp = sent;
    out = into;
    deframer.push(body, emit);
    deframer.end(emit);
    return into.length - before;
  };
}

/** The SentTimestamp attribute (milliseconds since the epoch) as a timestamp; `now` when absent or malformed. */
export function sentTimestamp(attributes: Record<string, string> | undefined, now: number): Timestamp {
  const ms = Number(attributes?.SentTimestamp);
  return new Timestamp(Number.isFinite(ms) && ms > 0 ? Math.floor(ms) : Math.floor(now));
}
