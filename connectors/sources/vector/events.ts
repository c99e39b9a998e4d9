/** Internal events of the `vector` source: each logs and counts together. */
import type { SourceContext } from '../../../lib/component.js';

/** Counters bound once per source. */
export interface VectorSourceEvents {
  /** A request body that is not a `PushEventsRequest`. */
  requestInvalid(reason: string, peer: string): void;
  /** Events of a request weir cannot hold (traces, sketches), by reason. */
  eventsDropped(reason: string, count: number): void;
  /** The output stayed full past the hold timeout: the client is told to retry. */
  backpressure(): void;
  /** Delivery downstream failed for a request's events (end-to-end acknowledgements). */
  deliveryFailed(status: string, events: number): void;
  /** The listener could not serve (bind failure). */
  listenerFailed(err: Error): void;
}

export function vectorSourceEvents(ctx: SourceContext): VectorSourceEvents {
  const parserFailed = ctx.telemetry.counter('component_errors_total', { error_type: 'parser_failed', stage: 'receiving' });
  const discarded = ctx.telemetry.counter('component_discarded_events_total', { intentional: 'false' });
  const ackFailed = ctx.telemetry.counter('component_errors_total', { error_type: 'acknowledgements_failed', stage: 'sending' });
  const listenerErrors = ctx.telemetry.counter('component_errors_total', { error_type: 'connection_failed', stage: 'receiving' });
  return {
    requestInvalid(reason, peer) {
      parserFailed.add(1);
      // the logger rate-limits repeats of one message
      ctx.log.warn('Refused a vector request that could not be decoded.', { error: reason, peer_addr: peer });
    },
    eventsDropped(reason, count) {
      discarded.add(count);
      ctx.log.warn('Dropped events weir cannot represent.', { reason, count });
    },
    backpressure() {
      ctx.log.debug('Output full past the hold timeout; asking the vector client to retry.');
    },
    deliveryFailed(status, events) {
      ackFailed.add(1);
      ctx.log.warn('Events were not delivered; the vector request is answered with an error.', { status, events });
    },
    listenerFailed(err) {
      listenerErrors.add(1);
      ctx.log.error('vector listener error.', { error: err.message });
    },
  };
}
