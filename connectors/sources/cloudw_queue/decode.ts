/**
 * The time of a queue message (as Vector's aws_sqs source): every event gets `timestamp` = the
 * message's SentTimestamp where the decoded data has none. The body itself is decoded by the
 * source skeleton's message decoder.
 */
import { Timestamp } from '../../../lib/value.js';

/** The SentTimestamp attribute (milliseconds since the epoch) as a timestamp; `now` when absent or malformed. */
export function sentTimestamp(attributes: Record<string, string> | undefined, now: number): Timestamp {
  const ms = Number(attributes?.SentTimestamp);
  return new Timestamp(Number.isFinite(ms) && ms > 0 ? Math.floor(ms) : Math.floor(now));
}
