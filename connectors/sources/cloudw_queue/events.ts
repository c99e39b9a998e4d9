/**
 * Internal events of the `cloudw_queue` source: each logs and counts
 * together. The logger rate-limits repeats, so a queue that stays unreachable logs once per window.
 */
import type { ComponentContext } from '../../../lib/component.js';

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The internal events of one source, counters bound once. */
export interface QueueSourceEvents {
  /** A receive call failed; the loop polls again after `retryMs`. */
  receiveFailed(err: unknown, retryMs: number): void;
  /** `messages` messages could not be deleted; they will be received again after their visibility timeout. */
  deleteFailedFor(messages: number, err: unknown): void;
  /** Events of a message were not delivered: the message stays and comes back after its visibility timeout. */
  keptForRedelivery(status: string): void;
}

/** Binds the counters of one source. */
export function queueSourceEvents(ctx: Pick<ComponentContext, 'telemetry' | 'log'>): QueueSourceEvents {
  const t = ctx.telemetry;
  const receiveErrors = t.counter('component_errors_total', { error_type: 'request_failed', stage: 'receiving' });
  const deleteErrors = t.counter('component_errors_total', { error_type: 'writer_failed', stage: 'processing' });
  const deleteFailed = t.counter('queue_message_delete_failed_total');
  return {
    receiveFailed(err, retryMs) {
      receiveErrors.add();
      ctx.log.error('Failed to receive messages from the queue.', { error: message(err), retry_ms: retryMs });
    },
    deleteFailedFor(messages, err) {
      deleteErrors.add();
      deleteFailed.add(messages);
      ctx.log.error('Failed to delete messages from the queue; they will be received again.', { error: message(err), messages });
    },
    keptForRedelivery(status) {
      ctx.log.debug('Events not delivered; message left on the queue for redelivery.', { status });
    },
  };
}
