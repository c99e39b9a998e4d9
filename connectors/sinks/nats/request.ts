/** A batch of messages published in one attempt, and how one attempt's answers are read. */
import type { Event } from '../../../lib/event.js';
import type { SinkRequest, Verdict } from '../../shared/request-sink.js';
import type { NatsMessage } from './encoder.js';

/** The messages of one attempt; `events[i]` is the event of `messages[i]`. */
export interface NatsRequest extends SinkRequest {
  readonly events: Event[];
  readonly messages: NatsMessage[];
}

/** What became of each message of an attempt: undefined = taken (flushed, or stored by the stream), else why not. */
export type NatsOutcomes = (Error | undefined)[];

/** Builds the request of one batch. */
export function buildNatsRequest(items: NatsMessage[]): NatsRequest {
  const events: Event[] = new Array(items.length);
  let bytes = 0;
  for (let i = 0; i < items.length; i++) {
    events[i] = items[i]!.event;
    bytes += items[i]!.size;
  }
  return { events, messages: items, bytes };
}

/**
 * Reads the outcomes of one attempt: the messages taken are delivered; of the others those the
 * server refuses for good (`isFinal`) end rejected and the rest are sent again.
 */
export function classifyOutcomes(outcomes: NatsOutcomes, req: NatsRequest, isFinal: (err: Error) => boolean): Verdict<NatsRequest> {
  let failed = 0;
  for (const o of outcomes) if (o !== undefined) failed++;
  if (failed === 0) return { kind: 'ok' };
  const delivered: Event[] = [];
  const refused: Event[] = [];
  const rest: NatsMessage[] = [];
  let refusedWhy: Error | undefined;
  let retriedWhy: Error | undefined;
  for (let i = 0; i < req.messages.length; i++) {
    const o = outcomes[i];
    const m = req.messages[i]!;
    if (o === undefined) delivered.push(m.event);
    else if (isFinal(o)) {
      refused.push(m.event);
      refusedWhy ??= o;
    } else {
      rest.push(m);
      retriedWhy ??= o;
    }
  }
  const error = new Error(`${rest.length} of ${req.messages.length} messages failed (${retriedWhy?.message ?? 'refused'})`);
  if (refused.length === 0) {
    if (delivered.length === 0) return { kind: 'retry', error: retriedWhy ?? error };
    return { kind: 'partial', delivered, rest: buildNatsRequest(rest), error };
  }
  const reason = new Error(`${refused.length} of ${req.messages.length} messages refused by the server (${refusedWhy!.message})`);
  return { kind: 'partial', delivered, rest: buildNatsRequest(rest), error, refused: { events: refused, reason } };
}
