/** Internal events of the `socket` sink: each logs and counts together. */
import type { SinkContext } from '../../../lib/component.js';

/** A connection attempt failed; the next one follows after `retryInMs`. */
export function connectFailed(ctx: SinkContext, err: Error, retryInMs: number): void {
  ctx.telemetry.counter('component_errors_total', { error_type: 'connection_failed', stage: 'sending' }).add(1);
  ctx.log.warn('Unable to connect.', { error: err.message, retry_in_ms: retryInMs });
}

/** A connection is open (Vector's `connection_established_total`, by `mode`). */
export function connectionEstablished(ctx: SinkContext, mode: 'tcp' | 'unix'): void {
  ctx.telemetry.counter('connection_established_total', { mode }).add(1);
  ctx.log.debug('Connected.', { mode });
}

/** The peer ended the connection; the next write reconnects (Vector's `connection_shutdown_total`). */
export function connectionShutdown(ctx: SinkContext, mode: 'tcp' | 'unix'): void {
  ctx.telemetry.counter('connection_shutdown_total', { mode }).add(1);
  ctx.log.debug('Received EOF from the server, shutdown.', { mode });
}

/** An open connection failed. */
export function connectionLost(ctx: SinkContext, reason: string): void {
  ctx.log.warn('Connection lost; reconnecting on the next write.', { error: reason });
}

/** Writing a batch failed; its events are reported errored. */
export function writeFailed(ctx: SinkContext, err: Error, events: number): void {
  ctx.telemetry.counter('component_errors_total', { error_type: 'writer_failed', stage: 'sending' }).add(1);
  ctx.log.warn('Failed writing events.', { error: err.message, events });
}
