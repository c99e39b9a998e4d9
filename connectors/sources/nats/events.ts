/** Internal events of the `nats` source: each logs and counts together. */
import type { ComponentContext } from '../../../lib/component.js';

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The internal events of one source, counters bound once. */
export interface NatsSourceEvents {
  /** A pull from the JetStream consumer failed; the next one follows after `retryMs`. */
  fetchFailed(err: unknown, retryMs: number): void;
  /** A message's events were not delivered: it was negatively acknowledged, for the server to deliver again. */
  redeliveryAsked(status: string): void;
  /** An acknowledgement could not be sent (connection gone): the server delivers the message again after its ack wait. */
  ackFailed(err: unknown): void;
}

/** Binds the counters of one source. */
export function natsSourceEvents(ctx: Pick<ComponentContext, 'telemetry' | 'log'>): NatsSourceEvents {
  const t = ctx.telemetry;
  const fetchErrors = t.counter('component_errors_total', { error_type: 'request_failed', stage: 'receiving' });
  const ackErrors = t.counter('component_errors_total', { error_type: 'acknowledgements_failed', stage: 'sending' });
  return {
    fetchFailed(err, retryMs) {
      fetchErrors.add();
      ctx.log.error('Failed to pull messages from the JetStream consumer.', { error: message(err), retry_ms: retryMs });
    },
    redeliveryAsked(status) {
      ctx.log.debug('Events not delivered; message negatively acknowledged for redelivery.', { status });
    },
    ackFailed(err) {
      ackErrors.add();
      ctx.log.error('Failed to acknowledge a JetStream message; it will be delivered again.', { error: message(err) });
    },
  };
}
