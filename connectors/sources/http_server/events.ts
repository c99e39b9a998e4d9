/** Internal events of the `http_server` source: each logs and counts together, with Vector's metric names. */
import type { SourceContext } from '../../../lib/component.js';
import type { Counter, Histogram } from '../../../lib/telemetry/registry.js';

/** Distinct `http_path` tag values kept per source; bytes of further paths are counted without the tag, so a client cannot grow the registry without bound. */
export const MAX_PATH_TAGS = 1000;

/** Counters bound once per source. */
export interface HttpServerEvents {
  /** A request arrived (`http_server_requests_received_total`). */
  requestReceived(): void;
  /** A response went out (`http_server_responses_sent_total`, `http_server_handler_duration_seconds`, tagged with the status). */
  responseSent(status: number, seconds: number): void;
  /** Body bytes after decompression (`component_received_bytes_total` with `http_path` and `protocol`, as Vector tags it). */
  received(path: string, bytes: number): void;
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
export function httpServerEvents(ctx: SourceContext, protocol: string): HttpServerEvents {
  const badRequests = new Map<number, Counter>();
  const requests = ctx.telemetry.counter('http_server_requests_received_total');
  const responses = new Map<number, { sent: Counter; duration: Histogram }>();
  const bytesByPath = new Map<string, Counter>();
  const bytesUntagged = ctx.telemetry.counter('component_received_bytes_total', { protocol });
  const parserFailed = ctx.telemetry.counter('component_errors_total', { error_code: 'decoder_deserialize', error_type: 'parser_failed', stage: 'processing' });
  const ackFailed = ctx.telemetry.counter('component_errors_total', { error_type: 'acknowledgements_failed', stage: 'sending' });
  const listenerErrors = ctx.telemetry.counter('component_errors_total', { error_type: 'connection_failed', stage: 'receiving' });
  return {
    requestReceived() {
      requests.add(1);
    },
    responseSent(status, seconds) {
      let r = responses.get(status);
      if (r === undefined) {
        const tags = { status: String(status) };
        r = { sent: ctx.telemetry.counter('http_server_responses_sent_total', tags), duration: ctx.telemetry.histogram('http_server_handler_duration_seconds', tags) };
        responses.set(status, r);
      }
      r.sent.add(1);
      r.duration.record(seconds);
    },
    received(path, bytes) {
      let c = bytesByPath.get(path);
      if (c === undefined) {
        if (bytesByPath.size >= MAX_PATH_TAGS) return bytesUntagged.add(bytes);
        c = ctx.telemetry.counter('component_received_bytes_total', { http_path: path, protocol });
        bytesByPath.set(path, c);
      }
      c.add(bytes);
    },
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
