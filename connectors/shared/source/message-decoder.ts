/**
 * One message to events, for sources that receive whole messages (a queue message, a NATS
 * payload): the body goes through the framing (default `bytes`: the whole body is one frame) and
 * the codec; each event gets the message's time where the decoded data has none. Frames over the
 * limit and frames the codec cannot decode are counted in `component_errors_total` and skipped, as
 * Vector counts them.
 */
import { type DecodingConfig, type FrameDiscard, type FrameSink, type FramingConfig, type Stamp, createDeframer, createDeserializer } from '../../../lib/codecs/index.js';
import type { ComponentContext } from '../../../lib/component.js';
import type { Event } from '../../../lib/event.js';
import { Timestamp } from '../../../lib/value.js';

/** Decodes one body at a time; appends the events to `out` and returns how many it added. */
export type MessageDecoder = (body: Buffer, time: Timestamp, out: Event[]) => number;

const DISCARD_MESSAGES: Readonly<Record<FrameDiscard, string>> = {
  frame_too_long: 'Discarding frame longer than the framing limit (max_length or length_delimited.max_frame_length).',
  invalid_length: 'Discarding frame with an invalid length.',
  truncated: 'Discarding frame cut off by the end of the message.',
};

/** Compiles the framing and codec once per source; `sourceType` is written into each event. */
export function createMessageDecoder(
  config: { readonly framing: FramingConfig; readonly decoding: DecodingConfig },
  ctx: Pick<ComponentContext, 'id' | 'globals' | 'telemetry' | 'log'>,
  sourceType: string,
): MessageDecoder {
  const deserializer = createDeserializer(config.decoding, { sourceId: ctx.id, sourceType, logSchema: ctx.globals.log_schema, timezone: ctx.globals.timezone });
  const frameErrors = ctx.telemetry.counter('component_errors_total', { error_code: 'decoder_frame', error_type: 'parser_failed', stage: 'processing' });
  const decodeErrors = ctx.telemetry.counter('component_errors_total', { error_code: 'decoder_deserialize', error_type: 'parser_failed', stage: 'processing' });
  const deframer = createDeframer(config.framing, {
    onDiscard: (reason, bytes) => {
      frameErrors.add();
      ctx.log.warn(DISCARD_MESSAGES[reason], { error_code: 'decoder_frame', reason, frame_bytes: bytes });
    },
  });
  // no host or port: a message has no peer of its own
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
  return (body, time, into) => {
    const before = into.length;
    stamp.timestamp = time;
    out = into;
    deframer.push(body, emit);
    deframer.end(emit);
    return into.length - before;
  };
}
