/**
 * Internal events of the `cloudg_pubsub` source: each logs and counts together. The logger
 * rate-limits repeats, so a subscription that stays unreachable logs once per window.
 */
import type { ComponentContext } from '../../../lib/component.js';

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The internal events of one source, counters bound once. */
export interface PubsubSourceEvents {
  /** A pull failed; its loop pulls again after `retryMs`. */
  pullFailed(err: unknown, retryMs: number): void;
  /** `messages` acknowledgements (or deadline changes) failed; those messages are delivered again after their deadline. */
  ackFailed(verb: string, messages: number, err: unknown): void;
  /** Events of a message were not delivered: it is left unacknowledged, to come back after its deadline. */
  keptForRedelivery(status: string): void;
  /** The number of pull loops changed. */
  loopsChanged(loops: number): void;
}

/** Binds the counters of one source. */
export function pubsubSourceEvents(ctx: Pick<ComponentContext, 'telemetry' | 'log'>): PubsubSourceEvents {
  const t = ctx.telemetry;
  const pullErrors = t.counter('component_errors_total', { error_type: 'request_failed', stage: 'receiving' });
  const ackErrors = t.counter('component_errors_total', { error_type: 'acknowledgements_failed', stage: 'sending' });
  return {
    pullFailed(err, retryMs) {
      pullErrors.add();
      ctx.log.error('Failed to pull messages from the subscription.', { error: message(err), retry_ms: retryMs });
    },
    ackFailed(verb, messages, err) {
      ackErrors.add();
      ctx.log.error('Failed to acknowledge messages; they will be delivered again.', { call: verb, error: message(err), messages });
    },
    keptForRedelivery(status) {
      ctx.log.debug('Events not delivered; message left unacknowledged for redelivery.', { status });
    },
    loopsChanged(loops) {
      ctx.log.info('Pull loops changed.', { concurrency: loops });
    },
  };
}
