/**
 * Internal events of the `cloudw_queue` source: each logs and counts
 * together. The logger rate-limits repeats, so a queue that stays unreachable logs once per window.
 */
import type { ComponentContext } from '../../../lib/component.js';
import type { Counter } from '../../../lib/telemetry/registry.js';

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The counters of one source, bound once. */
export class QueueSourceEvents {
  private readonly receiveErrors: Counter;
  private readonly deleteErrors: Counter;
  private readonly deleteFailed: Counter;
  constructor(private readonly ctx: Pick<ComponentContext, 'telemetry' | 'log'>) {
    const t = ctx.telemetry;
    this.receiveErrors = t.counter('component_errors_total', { error_type: 'request_failed', stage: 'receiving' });
    this.deleteErrors = t.counter('component_errors_total', { error_type: 'writer_failed', stage: 'processing' });
    this.deleteFailed = t.counter('queue_message_delete_failed_total');
  }

  /** A receive call failed; the loop polls again after `retryMs`. */
  receiveFailed(err: unknown, retryMs: number): void {
    this.receiveErrors.add();
    this.ctx.log.error('Failed to receive messages from the queue.', { error: message(err), retry_ms: retryMs });
  }

  /** `messages` messages could not be deleted; they will be received again after their visibility timeout. */
  deleteFailedFor(messages: number, err: unknown): void {
    this.deleteErrors.add();
    this.deleteFailed.add(messages);
    this.ctx.log.error('Failed to delete messages from the queue; they will be received again.', { error: message(err), messages });
  }

  /** Events of a message were not delivered: the message stays and comes back after its visibility timeout. */
  keptForRedelivery(status: string): void {
    this.ctx.log.debug('Events not delivered; message left on the queue for redelivery.', { status });
  }
}
