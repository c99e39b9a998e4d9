/**
 * Internal events of every sink: each logs and counts together, so names, tags and
 * stages cannot drift between sinks. Discards are counted by the topology from the `rejected`
 * Delivery each of these events ends in, never here. Stages follow Vector: what fails while a sink encodes or
 * sends is `sending`; a template that fails to render for one event is `processing`.
 */
import type { ComponentContext } from '../../lib/component.js';
import type { Counter } from '../../lib/telemetry/registry.js';

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The counters of one sink, bound once when it is built. */
export class SinkEvents {
  private readonly requestErrors: Counter;
  private readonly encodeErrors: Counter;
  private readonly tooLarge: Counter;
  private readonly templateErrors: Counter;
  constructor(private readonly ctx: Pick<ComponentContext, 'telemetry' | 'log'>) {
    const t = ctx.telemetry;
    this.requestErrors = t.counter('component_errors_total', { error_type: 'request_failed', stage: 'sending' });
    this.encodeErrors = t.counter('component_errors_total', { error_type: 'encoder_failed', stage: 'sending' });
    this.tooLarge = t.counter('component_errors_total', { error_type: 'event_too_large', stage: 'sending' });
    this.templateErrors = t.counter('component_errors_total', { error_type: 'template_failed', stage: 'processing' });
  }

  /** A failed attempt that will be tried again after `delayMs`. */
  retrying(err: unknown, retry: number, delayMs: number): void {
    this.requestErrors.add();
    this.ctx.log.warn('Request failed, retrying.', { error: message(err), retry, delay_ms: delayMs });
  }

  /** The request is given up: its events end with `status`. */
  failed(err: unknown, events: number, status: string): void {
    this.requestErrors.add();
    this.ctx.log.error('Request failed, events not delivered.', { error: message(err), events, status });
  }

  /** The codec could not encode `events` events (the first reason given); they are rejected. */
  encodeFailed(err: unknown, events = 1): void {
    this.encodeErrors.add(events);
    this.ctx.log.error('Failed encoding event; dropped.', { error: message(err), dropped: events });
  }

  /** An event larger than `max_bytes` on its own is rejected (Vector's old-style sinks do so). */
  eventTooLarge(bytes: number, maxBytes: number): void {
    this.tooLarge.add();
    this.ctx.log.error('Event larger than batch.max_bytes; dropped.', { bytes, max_bytes: maxBytes });
  }

  /** A template (path, partition key, object key, index …) did not render for `events` events; they are rejected. */
  templateFailed(err: unknown, events = 1): void {
    this.templateErrors.add(events);
    this.ctx.log.error('Failed to render template; events dropped.', { error: message(err), dropped: events });
  }
}
