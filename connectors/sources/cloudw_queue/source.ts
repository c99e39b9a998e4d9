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
import { type Observable, Subject, defer, merge, takeUntil } from 'rxjs';
import type { SourceContext } from '../../../lib/component.js';
import type { DeliveryStatus, Event, EventBatch } from '../../../lib/event.js';
import { pullWhile } from '../../../lib/gate.js';
import { cloudwClientConfig } from '../../shared/cloudw/client.js';
import { type MessageDecoder, type SettledPart, type SourceOutput, Unsettled, createMessageDecoder, runSource } from '../../shared/source/index.js';
import type { CloudwQueueSourceConfig } from './config.js';
import { sentTimestamp } from './decode.js';
import { createDeleter } from './deleter.js';
import { type QueueSourceEvents, queueSourceEvents } from './events.js';
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
  // a sink downstream asks for acknowledgements, or the source's own (older) switch does
  return runSource(ctx, { acknowledgements: config.acknowledgements.enabled === true }, (out) => {
    const sqs = client ?? new (sqsSdk().SQSClient)(cloudwClientConfig(config, ctx));
    const queue = new QueueReceiver(config, ctx, out, sqs, client !== undefined);
    const stop$ = new Subject<void>();
    const loops = merge(...Array.from({ length: config.client_concurrency }, () => queue.loop())).pipe(takeUntil(stop$));
    let drained!: () => void;
    const done = new Promise<void>((resolve) => (drained = resolve));
    const sub = loops.subscribe({ next: (parts) => out.emitEach(parts), complete: () => drained() });
    return {
      // a receive under way is aborted: its messages come back after their visibility timeout
      drain: () => {
        queue.abort();
        stop$.next();
        return done;
      },
      close: () => {
        sub.unsubscribe();
        queue.abort();
        queue.close();
      },
    };
  });
}

/** The receive loops' shared state: the client, the deleter and the messages awaiting delivery. */
class QueueReceiver {
  private readonly events: QueueSourceEvents;
  private readonly decode: MessageDecoder;
  private readonly deleter: ReturnType<typeof createDeleter>;
  private readonly stop = new AbortController();
  private readonly unsettled = new Unsettled();
  private closed = false;

  constructor(
    private readonly config: CloudwQueueSourceConfig,
    private readonly ctx: SourceContext,
    private readonly out: SourceOutput,
    private readonly sqs: SQSClient,
    /** A client given by the caller stays open: the caller owns it. */
    private readonly borrowed: boolean,
  ) {
    this.events = queueSourceEvents(ctx);
    this.decode = createMessageDecoder(config, ctx, 'cloudw_queue');
    this.deleter = createDeleter(sqs, config.queue_url, this.events, DELETE_TIMEOUT_MS);
  }

  /** One receive loop: asks again only while the output gate is open; failures back off. */
  loop(): Observable<SettledPart[]> {
    let failures = 0;
    return pullWhile(
      () =>
        defer(async () => {
          if (this.stop.signal.aborted) return undefined;
          try {
            const messages = await this.receive();
            failures = 0;
            return messages.length === 0 ? undefined : this.parts(messages);
          } catch (err) {
            if (this.stop.signal.aborted) return undefined;
            const wait = retryDelayMs(failures++);
            this.events.receiveFailed(err, wait);
            await this.pause(wait);
            return undefined;
          }
        }),
      this.ctx.out,
    );
  }

  abort(): void {
    this.stop.abort();
  }

  /** The client is kept after teardown until the last message settled and its delete went out. */
  close(): void {
    this.closed = true;
    this.release();
  }

  private release(): void {
    if (!this.closed || this.unsettled.count > 0 || this.borrowed) return;
    void this.deleter.idle().then(() => this.sqs.destroy());
  }

  private async receive(): Promise<Message[]> {
    const { poll_secs: pollSecs } = this.config;
    const res = await this.sqs.send(
      new (sqsSdk().ReceiveMessageCommand)({
        QueueUrl: this.config.queue_url,
        MaxNumberOfMessages: MAX_MESSAGES,
        WaitTimeSeconds: pollSecs,
        VisibilityTimeout: this.config.visibility_timeout_secs,
        MessageSystemAttributeNames: ['SentTimestamp'],
      }),
      { abortSignal: AbortSignal.any([this.stop.signal, AbortSignal.timeout(pollSecs * 1000 + RECEIVE_GRACE_MS)]) },
    );
    return res.Messages ?? [];
  }

  /**
   * Each message's events settle on their own: delivered → deleted (when `delete_message`);
   * otherwise kept, to come back after the visibility timeout. A message whose body yields no
   * event is deleted: it would never yield one.
   */
  private parts(messages: readonly Message[]): SettledPart[] {
    const parts: SettledPart[] = [];
    const now = this.ctx.scheduler.now();
    for (const m of messages) {
      // a message without a body yields nothing and is left alone
      if (m.Body === undefined || m.ReceiptHandle === undefined) continue;
      const body = Buffer.from(m.Body, 'utf8');
      this.out.received(body.length);
      const events: Event[] = [];
      this.decode(body, sentTimestamp(m.Attributes, now), events);
      const handle = m.ReceiptHandle;
      parts.push({ events, settled: this.unsettled.wrap((status) => this.settled(handle, status)) });
    }
    return parts;
  }

  private settled(handle: string, status: DeliveryStatus): void {
    if (status !== 'delivered') this.events.keptForRedelivery(status);
    else if (this.config.delete_message) this.deleter.add(handle);
    this.release();
  }

  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const action = this.ctx.scheduler.schedule(() => resolve(), ms);
      this.stop.signal.addEventListener('abort', () => (action.unsubscribe(), resolve()), { once: true });
    });
  }
}
