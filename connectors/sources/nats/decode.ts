/**
 * One message payload to events (as Vector's nats source): the source skeleton's message decoder
 * (framing, codec, counted failures), then each log event gets the message subject at
 * `subject_key_field` where it has no such field.
 */
import type { ComponentContext } from '../../../lib/component.js';
import { type Event, LogEvent } from '../../../lib/event.js';
import { type Path, getPath, parsePath, setPath } from '../../../lib/path.js';
import { Timestamp } from '../../../lib/value.js';
import { createMessageDecoder } from '../../shared/source/index.js';
import type { NatsSourceConfig } from './config.js';

/** Decodes one payload; appends the events to `out` and returns how many it added. */
export type NatsMessageDecoder = (payload: Uint8Array, subject: string, now: number, out: Event[]) => number;

/** Compiles the framing, codec and subject field once per source. */
export function createNatsDecoder(
  config: Pick<NatsSourceConfig, 'framing' | 'decoding' | 'subject_key_field'>,
  ctx: Pick<ComponentContext, 'id' | 'globals' | 'telemetry' | 'log'>,
): NatsMessageDecoder {
  const decode = createMessageDecoder(config, ctx, 'nats');
  const subjectKey: Path | undefined = config.subject_key_field === '' ? undefined : parsePath(config.subject_key_field);
  return (payload, subject, now, into) => {
    const before = into.length;
    decode(Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength), new Timestamp(Math.floor(now)), into);
    if (subjectKey !== undefined)
      for (let i = before; i < into.length; i++) {
        const e = into[i];
        if (e instanceof LogEvent && getPath(e.fields, subjectKey) === undefined) setPath(e.fields, subjectKey, subject);
      }
    return into.length - before;
  };
}
