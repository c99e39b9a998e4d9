/**
 * One pulled message to events, as Vector's gcp_pubsub source shapes them: the data goes through
 * the framing and codec (the source skeleton's message decoder); each log event then gets the
 * message's `attributes` (an object of strings) and `message_id`, replacing fields of those names,
 * and `timestamp` is the message's publish time where the decoded data has none.
 */
import type { ComponentContext } from '../../../lib/component.js';
import { type Event, LogEvent } from '../../../lib/event.js';
import { Timestamp } from '../../../lib/value.js';
import { createMessageDecoder } from '../../shared/source/index.js';
import type { CloudgPubsubSourceConfig } from './config.js';
import type { ReceivedMessage } from './subscription.js';

/** Decodes one message; appends its events to `out`, returns the bytes of its data. */
export type PubsubMessageDecoder = (m: ReceivedMessage, now: number, out: Event[]) => number;

/** The publish time (RFC 3339, nanoseconds allowed) in milliseconds; `now` when absent or malformed. */
export function publishTime(text: string | undefined, now: number): Timestamp {
  const ms = text === undefined ? NaN : Date.parse(text);
  return new Timestamp(Number.isFinite(ms) ? ms : Math.floor(now));
}

/** Compiles the framing and codec once per source. */
export function createPubsubDecoder(config: Pick<CloudgPubsubSourceConfig, 'framing' | 'decoding'>, ctx: Pick<ComponentContext, 'id' | 'globals' | 'telemetry' | 'log'>): PubsubMessageDecoder {
  const decode = createMessageDecoder(config, ctx, 'cloudg_pubsub');
  return (m, now, into) => {
    const msg = m.message;
    const data = Buffer.from(msg?.data ?? '', 'base64');
    const before = into.length;
    decode(data, publishTime(msg?.publishTime, now), into);
    const attributes = msg?.attributes ?? {};
    const id = msg?.messageId ?? '';
    for (let i = before; i < into.length; i++) {
      const e = into[i];
      if (!(e instanceof LogEvent)) continue;
      // each event owns its attributes object: a transform may change one event's copy
      e.fields.attributes = i === before ? attributes : { ...attributes };
      e.fields.message_id = id;
    }
    return data.length;
  };
}
