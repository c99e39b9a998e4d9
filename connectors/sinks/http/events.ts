/** Internal events of the `http` sink: each logs and counts together (STYLE §9). */
import type { SinkContext } from '../../../lib/component.js';
import type { Counter } from '../../../lib/telemetry/registry.js';
import { HttpStatusError } from './retry.js';

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Counters bound once per sink. */
export class HttpSinkEvents {
  private readonly requestErrors: Counter;
  private readonly encodeErrors: Counter;
  private readonly tooLarge: Counter;
  private readonly badRequests: Counter;
  constructor(private readonly ctx: Pick<SinkContext, 'telemetry' | 'log'>) {
    this.requestErrors = ctx.telemetry.counter('component_errors_total', { error_type: 'request_failed', stage: 'sending' });
    this.encodeErrors = ctx.telemetry.counter('component_errors_total', { error_type: 'encoder_failed', stage: 'processing' });
    this.tooLarge = ctx.telemetry.counter('component_errors_total', { error_type: 'event_too_large', stage: 'processing' });
    this.badRequests = ctx.telemetry.counter('http_bad_requests_total');
  }

  /** A failed attempt that will be tried again after `delayMs`. */
  retrying(err: unknown, retry: number, delayMs: number): void {
    this.attemptFailed(err);
    this.ctx.log.warn('request failed, retrying', { error: message(err), retry, delay_ms: delayMs });
  }

  /** The request is given up: its events fail with `status`. */
  failed(err: unknown, events: number, status: string): void {
    this.attemptFailed(err);
    this.ctx.log.error('request failed, events not delivered', { error: message(err), events, status });
  }

  private attemptFailed(err: unknown): void {
    this.requestErrors.add();
    if (err instanceof HttpStatusError && err.status === 400) this.badRequests.add();
  }

  /** The codec could not encode an event; it is dropped. */
  encodeFailed(err: unknown): void {
    this.encodeErrors.add();
    this.ctx.log.error('event could not be encoded, dropped', { error: message(err) });
  }

  /** reference sinks §0.2: an event larger than max_bytes on its own is dropped. */
  eventTooLarge(bytes: number, maxBytes: number): void {
    this.tooLarge.add();
    this.ctx.log.error('event larger than batch.max_bytes, dropped', { bytes, max_bytes: maxBytes });
  }
}
