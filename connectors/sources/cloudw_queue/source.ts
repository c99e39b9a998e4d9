/**
 * The `cloudw_queue` source: `client_concurrency` loops each
 * long-poll ReceiveMessage (10 messages, `poll_secs`, `visibility_timeout_secs`) and emit the
 * decoded events of one answer as one batch. A loop asks again only while the output gate is
 * open, so a full buffer downstream stops the polling.
 *
 * Deletion: with end-to-end acknowledgements each message's events carry their own notifier and
 * the message is deleted only when every copy of every event was delivered; otherwise it stays
 * and is received again after its visibility timeout. Without acknowledgements messages are
 * deleted once their events are in the buffers downstream. A message whose body yields no event
 * (empty, every frame discarded or undecodable) is deleted: it would never yield one.
 */
import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import { Observable } from 'rxjs';
import { receivedBytesCounter } from '../../../lib/codecs/index.js';
import type { SourceContext } from '../../../lib/component.js';
import { BatchNotifier, type Event, type EventBatch, attachNotifier } from '../../../lib/event.js';
import { waitOpen } from '../../../lib/gate.js';
import { cloudwClientConfig } from '../../shared/cloudw/client.js';
import type { CloudwQueueSourceConfig } from './config.js';
import { createMessageDecoder, sentTimestamp } from './decode.js';
import { createDeleter } from './deleter.js';
import { QueueSourceEvents } from './events.js';
import { lazyModule } from '../../../lib/lazy-module.js';

const sqsSdk = lazyModule<typeof import('@aws-sdk/client-sqs')>('@aws-sdk/client-sqs');

/** Messages asked for per receive call (the service's maximum). */
const MAX_MESSAGES = 10;
/** Waits after consecutive receive failures: 0.5 s doubling up to 30 s, so an unreachable queue is not hammered. */
const retryDelayMs = (failures: number): number => Math.min(30_000, 500 * 2 ** Math.min(failures, 6));
/** Time limit of one delete call. */
const DELETE_TIMEOUT_MS = 30_000;
/** A receive may take poll_secs; past this much longer its connection is taken for dead. */
const RECEIVE_GRACE_MS = 30_000;

/** Builds the source; `client` replaces the one made from the options (tests). */
export function buildCloudwQueueSource(config: CloudwQueueSourceConfig, ctx: SourceContext, client?: SQSClient): Observable<EventBatch> {
  return new Observable<EventBatch>((subscriber) => {
    const sqs = client ?? new (sqsSdk().SQSClient)(cloudwClientConfig(config, ctx));
    const events = new QueueSourceEvents(ctx);
    const decode = createMessageDecoder(config, ctx);
    const deleter = createDeleter(sqs, config.queue_url, events, DELETE_TIMEOUT_MS);
    const receivedBytes = receivedBytesCounter(ctx);
    // a sink downstream asks for acknowledgements, or the source's own (older) switch does
    const waitsForDelivery = ctx.acknowledgements || config.acknowledgements.enabled === true;
    const stop = new AbortController();
    let unsettled = 0;
    let closed = false;
    /** The client is kept after unsubscribe until the last notifier settled and its delete went out. */
    const release = () => {
      if (!closed || unsettled > 0 || client) return;
      void deleter.idle().then(() => sqs.destroy());
    };
    const settled = (handle: string) => (status: string) => {
      unsettled--;
      if (status === 'delivered') deleter.add(handle);
      else events.keptForRedelivery(status);
      release();
    };

    /** Decodes one answer into a batch; returns the handles to delete now (acks off, or messages with no event). */
    const take = (messages: readonly Message[]): { batch: Event[]; deleteNow: string[] } => {
      const batch: Event[] = [];
      const deleteNow: string[] = [];
      const now = ctx.scheduler.now();
      for (const m of messages) {
        // a message without a body yields nothing and is left alone
        if (m.Body === undefined || m.ReceiptHandle === undefined) continue;
        const body = Buffer.from(m.Body, 'utf8');
        receivedBytes.add(body.length);
        const start = batch.length;
        const n = decode(body, sentTimestamp(m.Attributes, now), batch);
        if (n > 0 && waitsForDelivery) {
          unsettled++;
          attachNotifier(batch.slice(start), new BatchNotifier(config.delete_message ? settled(m.ReceiptHandle) : () => (unsettled--, release())));
        } else if (config.delete_message) deleteNow.push(m.ReceiptHandle);
      }
      return { batch, deleteNow };
    };

    const pause = (ms: number) =>
      new Promise<void>((resolve) => {
        const action = ctx.scheduler.schedule(() => resolve(), ms);
        stop.signal.addEventListener('abort', () => (action.unsubscribe(), resolve()), { once: true });
      });

    const stopped = new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
    const loop = async () => {
      let failures = 0;
      while (!stop.signal.aborted) {
        const gate = waitOpen(ctx.out);
        if (gate) await Promise.race([gate, stopped]);
        if (stop.signal.aborted) return;
        let messages: Message[];
        try {
          const res = await sqs.send(
            new (sqsSdk().ReceiveMessageCommand)({
              QueueUrl: config.queue_url,
              MaxNumberOfMessages: MAX_MESSAGES,
              WaitTimeSeconds: config.poll_secs,
              VisibilityTimeout: config.visibility_timeout_secs,
              MessageSystemAttributeNames: ['SentTimestamp'],
            }),
            { abortSignal: AbortSignal.any([stop.signal, AbortSignal.timeout(config.poll_secs * 1000 + RECEIVE_GRACE_MS)]) },
          );
          messages = res.Messages ?? [];
          failures = 0;
        } catch (err) {
          if (stop.signal.aborted) return;
          const wait = retryDelayMs(failures++);
          events.receiveFailed(err, wait);
          await pause(wait);
          continue;
        }
        if (messages.length === 0) continue;
        const { batch, deleteNow } = take(messages);
        if (batch.length > 0) subscriber.next(batch);
        // acks off: the events are in the buffers downstream now
        for (const h of deleteNow) deleter.add(h);
      }
    };

    const loops = Array.from({ length: config.client_concurrency }, () => loop());
    // shutdown: a receive under way is aborted (its messages come back after their visibility timeout)
    const shutdown = ctx.shutdown$.subscribe(() => {
      stop.abort();
      void Promise.all(loops).then(() => subscriber.complete());
    });
    return () => {
      shutdown.unsubscribe();
      stop.abort();
      closed = true;
      release();
    };
  });
}
