/**
 * Deletes received messages in DeleteMessageBatch calls of at most 10 (the SQS maximum).
 * Handles added in one turn of the event loop go out together; a failed call, or failed entries
 * of an answered one, count in `queue_message_delete_failed_total` and those messages come back
 * after their visibility timeout.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { QueueSourceEvents } from './events.js';
import { lazyModule } from '../../../lib/lazy-module.js';
import { type TurnBatcher, createTurnBatcher } from '../../shared/source/index.js';

const sqsSdk = lazyModule<typeof import('@aws-sdk/client-sqs')>('@aws-sdk/client-sqs');

/** The service's limit on entries per DeleteMessageBatch call. */
const MAX_ENTRIES = 10;

/** Queues receipt handles for deletion; `idle()` resolves when every queued and running delete has finished. */
export type Deleter = TurnBatcher<string>;

/** A deleter for one queue; `timeoutMs` bounds each call. */
export function createDeleter(sqs: SQSClient, queueUrl: string, events: QueueSourceEvents, timeoutMs: number): Deleter {
  return createTurnBatcher<string>(MAX_ENTRIES, (handles) => {
    const entries = handles.map((h, i) => ({ Id: String(i), ReceiptHandle: h }));
    return sqs.send(new (sqsSdk().DeleteMessageBatchCommand)({ QueueUrl: queueUrl, Entries: entries }), { abortSignal: AbortSignal.timeout(timeoutMs) }).then(
      (res) => {
        const failed = res.Failed ?? [];
        if (failed.length > 0) events.deleteFailedFor(failed.length, new Error(`${failed[0]!.Code ?? 'unknown'}: ${failed[0]!.Message ?? ''}`));
      },
      (err: unknown) => events.deleteFailedFor(handles.length, err),
    );
  });
}
