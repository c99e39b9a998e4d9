/** Internal events of the `opentelemetry` source: each logs and counts together. */
import type { SourceContext } from '../../../lib/component.js';
import type { SourceOutput } from '../../shared/source/index.js';

/** The transport a request came on, as the `protocol` tag. */
export type OtlpProtocol = 'grpc' | 'http';

/** Counters and histograms bound once per source. */
export interface OtlpEvents {
  /** Bytes of one request body as received (before decompression). */
  received(protocol: OtlpProtocol, bytes: number): void;
  /** A body that could not be read: bad compression, bad protobuf or JSON, too large. */
  requestInvalid(protocol: OtlpProtocol, reason: string, peer: string | undefined): void;
  /** Records refused inside an otherwise good request (partial success). */
  recordsRejected(protocol: OtlpProtocol, count: number, reason: string): void;
  /** The output is full: the request is held until it opens. */
  held(protocol: OtlpProtocol): void;
  /** The output stayed full past the hold timeout: the request is refused and the client retries. */
  backpressure(protocol: OtlpProtocol): void;
  /** The client went away while its request was held; nothing of it was emitted. */
  abandoned(protocol: OtlpProtocol): void;
  /** Delivery downstream failed for a request's events (end-to-end acknowledgements). */
  deliveryFailed(protocol: OtlpProtocol, status: string, events: number): void;
  /** The listener could not serve (bind failure, socket error). */
  listenerFailed(protocol: OtlpProtocol, err: Error): void;
}

/**
 * Binds the metrics of one source subscription. `out` counts the HTTP bytes (its counter carries
 * `protocol=http`); gRPC bytes go to a second series of the same counter tagged `protocol=grpc`.
 */
export function otlpEvents(ctx: SourceContext, out: SourceOutput): OtlpEvents {
  const grpcBytes = ctx.telemetry.counter('component_received_bytes_total', { protocol: 'grpc' });
  const parserFailed = ctx.telemetry.counter('component_errors_total', { error_type: 'parser_failed', stage: 'receiving' });
  const discarded = ctx.telemetry.counter('component_discarded_events_total', { intentional: 'false' });
  const ackFailed = ctx.telemetry.counter('component_errors_total', { error_type: 'acknowledgements_failed', stage: 'sending' });
  const listenerErrors = ctx.telemetry.counter('component_errors_total', { error_type: 'connection_failed', stage: 'receiving' });
  return {
    received(protocol, n) {
      if (protocol === 'http') out.received(n);
      else grpcBytes.add(n);
    },
    requestInvalid(protocol, reason, peer) {
      parserFailed.add(1);
      // the logger rate-limits repeats of one message
      ctx.log.warn('Refused an OTLP request that could not be decoded.', { protocol, error: reason, peer_addr: peer ?? '' });
    },
    recordsRejected(protocol, count, reason) {
      discarded.add(count);
      ctx.log.warn('Refused OTLP log records (partial success).', { protocol, count, reason });
    },
    held(protocol) {
      ctx.log.debug('Output full; holding the OTLP request until it opens.', { protocol });
    },
    backpressure(protocol) {
      ctx.log.debug('Output full past the hold timeout; asking the OTLP client to retry.', { protocol });
    },
    abandoned(protocol) {
      ctx.log.debug('The OTLP client went away while its request was held; nothing was emitted.', { protocol });
    },
    deliveryFailed(protocol, status, events) {
      ackFailed.add(1);
      ctx.log.warn('Events were not delivered; the OTLP request is answered with an error.', { protocol, status, events });
    },
    listenerFailed(protocol, err) {
      listenerErrors.add(1);
      ctx.log.error('OTLP listener error.', { protocol, error: err.message });
    },
  };
}
