/**
 * One message payload to events (as Vector's nats source): the payload goes through the framing
 * (default `bytes`: the whole payload is one frame) and the codec; each log event gets the
 * message subject at `subject_key_field` where it has no such field. Frames over `max_length` and
 * frames the codec cannot decode are counted in `component_errors_total` and skipped.
 */
import { type Deframer, type Deserializer, type FrameDiscard, type FrameSink, type Stamp, createDeframer, createDeserializer } from '../../../lib/codecs/index.js';
import type { ComponentContext } from '../../../lib/component.js';
import { type Event, LogEvent } from '../../../lib/event.js';
import { type Path, getPath, parsePath, setPath } from '../../../lib/path.js';
import { Timestamp } from '../../../lib/value.js';
import type { NatsSourceConfig } from './config.js';

/** Decodes one payload; appends the events to `out` and returns how many it added. */
export type NatsMessageDecoder = (payload: Uint8Array, subject: string, now: number, out: Event[]) => number;

const DISCARD_MESSAGES: Readonly<Record<FrameDiscard, string>> = {
  frame_too_long: 'Discarding frame longer than the framing limit (max_length or length_delimited.max_frame_length).',
  invalid_length: 'Discarding frame with an invalid length.',
  truncated: 'Discarding frame cut off by the end of the message.',
};

/** Compiles the framing, codec and subject field once per source. */
export function createNatsDecoder(
  config: Pick<NatsSourceConfig, 'framing' | 'decoding' | 'subject_key_field'>,
  ctx: Pick<ComponentContext, 'id' | 'globals' | 'telemetry' | 'log'>,
): NatsMessageDecoder {
  const deserializer: Deserializer = createDeserializer(config.decoding, {
    sourceId: ctx.id,
    sourceType: 'nats',
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
  const subjectKey: Path | undefined = config.subject_key_field === '' ? undefined : parsePath(config.subject_key_field);
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
  return (payload, subject, now, into) => {
    const before = into.length;
    stamp.timestamp = new Timestamp(Math.floor(now));
    out = into;
    const body = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
    deframer.push(body, emit);
    deframer.end(emit);
    if (subjectKey !== undefined)
      for (let i = before; i < into.length; i++) {
        const e = into[i];
        if (e instanceof LogEvent && getPath(e.fields, subjectKey) === undefined) setPath(e.fields, subjectKey, subject);
      }
    return into.length - before;
  };
}
