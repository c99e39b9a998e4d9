/** Internal events of the `http_server` source: each logs and counts together, with Vector's metric names. */
import type { SourceContext } from '../../../lib/component.js';
import type { Counter } from '../../../lib/telemetry/registry.js';

/** Counters bound once per source. */
export interface HttpServerEvents {
  /** A request answered with a 4xx or 5xx status of the source's own (Vector's `HttpBadRequest`). */
  badRequest(status: number, message: string, peer: string | undefined): void;
  /** A frame of a body could not be decoded; the whole request is refused. */
  decodeFailed(message: string): void;
  /** A request was held or refused because the output is full. */
  backpressure(refused: boolean): void;
  /** Delivery downstream failed for a request's events (end-to-end acknowledgements). */
  deliveryFailed(status: string, events: number): void;
  /** The listener could not serve (bind failure, socket error). */
  listenerFailed(err: Error): void;
}

/** Binds the counters of one source. */
export function httpServerEvents(ctx: SourceContext): HttpServerEvents {
  const badRequests = new Map<number, Counter>();
  const parserFailed = ctx.telemetry.counter('component_errors_total', { error_code: 'decoder_deserialize', error_type: 'parser_failed', stage: 'processing' });
  const ackFailed = ctx.telemetry.counter('component_errors_total', { error_type: 'acknowledgements_failed', stage: 'sending' });
  const listenerErrors = ctx.telemetry.counter('component_errors_total', { error_type: 'connection_failed', stage: 'receiving' });
  return {
    badRequest(status, message, peer) {
      let c = badRequests.get(status);
      if (c === undefined) {
        // statuses are the handful the source answers with, so the map stays small
        c = ctx.telemetry.counter('component_errors_total', { error_code: `http_response_${status}`, error_type: 'request_failed', stage: 'receiving' });
        badRequests.set(status, c);
      }
      c.add(1);
      // the logger rate-limits repeats of one message
      ctx.log.warn('Received bad request.', { error: message, error_code: `http_response_${status}`, peer_addr: peer ?? '' });
    },
    decodeFailed(message) {
      parserFailed.add(1);
      ctx.log.warn('Failed deserializing frame.', { error_code: 'decoder_deserialize', error: message });
    },
    backpressure(refused) {
      if (refused) ctx.log.warn('Output full; refused a request with 503.', {});
      else ctx.log.debug('Output full; holding a request.', {});
    },
    deliveryFailed(status, events) {
      ackFailed.add(1);
      ctx.log.warn('Events were not delivered; the request is answered with an error.', { status, events });
    },
    listenerFailed(err) {
      listenerErrors.add(1);
      ctx.log.error('HTTP listener error.', { error: err.message });
    },
  };
}
