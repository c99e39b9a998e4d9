/**
 * Deletes received messages in DeleteMessageBatch calls of at most 10 (the SQS maximum).
 * Handles added in one turn of the event loop go out together; a failed call, or failed entries
 * of an answered one, count in `queue_message_delete_failed_total` and those messages come back
 * after their visibility timeout.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { QueueSourceEvents } from './events.js';
import { lazyModule } from '../../../lib/lazy-module.js';

const sqsSdk = lazyModule<typeof import('@aws-sdk/client-sqs')>('@aws-sdk/client-sqs');

/** The service's limit on entries per DeleteMessageBatch call. */
const MAX_ENTRIES = 10;

export interface Deleter {
  /** Queues one receipt handle for deletion. */
  add(receiptHandle: string): void;
  /** Resolves when every queued and running delete has finished. */
  idle(): Promise<void>;
}

/** A deleter for one queue; `timeoutMs` bounds each call. */
export function createDeleter(sqs: SQSClient, queueUrl: string, events: QueueSourceEvents, timeoutMs: number): Deleter {
  let pending: string[] = [];
  let scheduled = false;
  const running = new Set<Promise<void>>();
  const send = (handles: string[]): void => {
    const entries = handles.map((h, i) => ({ Id: String(i), ReceiptHandle: h }));
    const call = sqs
      .send(new (sqsSdk().DeleteMessageBatchCommand)({ QueueUrl: queueUrl, Entries: entries }), { abortSignal: AbortSignal.timeout(timeoutMs) })
      .then(
        (res) => {
          const failed = res.Failed ?? [];
          if (failed.length > 0) events.deleteFailedFor(failed.length, new Error(`${failed[0]!.Code ?? 'unknown'}: ${failed[0]!.Message ?? ''}`));
        },
        (err: unknown) => events.deleteFailedFor(handles.length, err),
      )
      .finally(() => running.delete(call));
    running.add(call);
  };
  const flush = (): void => {
    scheduled = false;
    while (pending.length > 0) {
      send(pending.slice(0, MAX_ENTRIES));
      pending = pending.slice(MAX_ENTRIES);
    }
  };
  return {
    add(handle) {
      pending.push(handle);
      if (pending.length >= MAX_ENTRIES) {
        send(pending);
        pending = [];
      } else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    async idle() {
      while (scheduled || running.size > 0) {
        if (scheduled) flush();
        await Promise.allSettled([...running]);
      }
    },
  };
}
