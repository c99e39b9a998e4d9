/** Internal events of listening sources: each logs and counts together. */
import type { ComponentContext } from '../../lib/component.js';

/** The listener is bound; `address` is the real one (port 0 resolved). */
export function listening(ctx: ComponentContext, address: string): void {
  ctx.log.info('Listening.', { address });
}

/** A connection failed (reset, timeout, TLS handshake); the source goes on. */
export function connectionFailed(ctx: ComponentContext, err: Error, peer: string | undefined): void {
  ctx.telemetry.counter('component_errors_total', { error_type: 'connection_failed', stage: 'receiving' }).add(1);
  ctx.log.warn('Connection error.', { error: err.message, peer_addr: peer ?? '' });
}
