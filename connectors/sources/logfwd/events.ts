/** Internal events of the `logfwd` source: each logs and counts together. */
import type { SourceContext } from '../../../lib/component.js';
import type { Counter } from '../../../lib/telemetry/registry.js';
import type { ForwardDecodeError } from './decode.js';

/** Counters bound once per source. */
export interface LogfwdEvents {
  /** A frame could not be decoded; the connection it came on is closed. */
  decodeFailed(err: ForwardDecodeError, peer: string | undefined): void;
  /** Delivery failed downstream: the client got `{}` for its chunks and the connection is closed. */
  deliveryFailed(status: string, chunks: number, peer: string | undefined): void;
}

/** Binds the counters of one source. */
export function logfwdEvents(ctx: SourceContext): LogfwdEvents {
  const decodeErrors: Counter = ctx.telemetry.counter('decode_errors_total');
  const parserFailed: Counter = ctx.telemetry.counter('component_errors_total', { error_type: 'parser_failed', stage: 'processing' });
  const ackFailed: Counter = ctx.telemetry.counter('component_errors_total', { error_type: 'acknowledgements_failed', stage: 'sending' });
  return {
    decodeFailed(err, peer) {
      decodeErrors.add(1);
      parserFailed.add(1);
      // the logger rate-limits repeats of one message
      ctx.log.warn('Failed decoding forward frame; closing the connection.', { error: err.message, bytes: err.bytes.toString('base64'), peer_addr: peer ?? '' });
    },
    deliveryFailed(status, chunks, peer) {
      ackFailed.add(1);
      ctx.log.warn('Events were not delivered; answering the chunks with an empty map and closing the connection.', { status, chunks, peer_addr: peer ?? '' });
    },
  };
}
