/**
 * Acknowledgements and deadline changes in calls of at most {@link MAX_ACK_IDS} ids, ids settled
 * in one turn of the event loop together. A failed call is counted and logged; its messages come
 * back after their deadline (at least once).
 */
import { type TurnBatcher, createTurnBatcher } from '../../shared/source/index.js';
import type { PubsubSourceEvents } from './events.js';
import { MAX_ACK_IDS } from './subscription.js';

/** Batches ack ids for `send`; `verb` names the call in the logs, `timeoutMs` bounds each call. */
export function createAcker(verb: string, send: (ids: string[], signal: AbortSignal) => Promise<void>, events: PubsubSourceEvents, timeoutMs: number): TurnBatcher<string> {
  return createTurnBatcher<string>(MAX_ACK_IDS, (ids) => send(ids, AbortSignal.timeout(timeoutMs)).catch((err: unknown) => events.ackFailed(verb, ids.length, err)));
}
