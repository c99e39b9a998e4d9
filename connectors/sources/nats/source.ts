/**
 * The `nats` source. Plain NATS: one subscription to `subject` (in the queue group `queue` when
 * set, so each message goes to one member of the group); each message's events are emitted as one
 * batch. Plain NATS has no flow control: a reader that falls behind loses messages at the server
 * (a slow consumer), so the subscription is never paused.
 *
 * JetStream (`jetstream.stream` and `jetstream.consumer`): the source pulls from an existing
 * durable pull consumer, at most `batch_config.batch` messages per pull, and pulls again only while
 * the output gate is open. Each message settles on its own: acknowledged once every sink delivered
 * its events (with end-to-end acknowledgements; without them once they are in the buffers
 * downstream), negatively acknowledged otherwise, so the server delivers it again.
 */
import type { Consumer, ConsumerMessages, JsMsg, Msg, NatsConnection, Subscription } from 'nats';
import { type Observable, Subject, defer, takeUntil } from 'rxjs';
import type { SourceContext } from '../../../lib/component.js';
import type { DeliveryStatus, Event, EventBatch } from '../../../lib/event.js';
import { pullWhile } from '../../../lib/gate.js';
import { NatsLink, natsConnectionOptions } from '../../shared/nats/connect.js';
import { type SourceOutput, runSource } from '../../shared/source/index.js';
import type { NatsSourceConfig } from './config.js';
import { type NatsMessageDecoder, createNatsDecoder } from './decode.js';
import { type NatsSourceEvents, natsSourceEvents } from './events.js';

/** How long one pull waits for messages before it ends empty, in milliseconds (the client's minimum is 1000). */
const PULL_EXPIRES_MS = 5_000;
/** Wait after a failed pull, so an unreachable server is not hammered. */
const PULL_RETRY_MS = 1_000;

/** Builds the source. */
export function buildNatsSource(config: NatsSourceConfig, ctx: SourceContext): Observable<EventBatch> {
  return runSource(ctx, { protocol: 'tcp' }, (out) => {
    // as Vector's source: a first connection that fails fails the source, and is not retried
    const link = new NatsLink(natsConnectionOptions(config, { waitOnFirstConnect: false }));
    const decode = createNatsDecoder(config, ctx);
    const reader = config.jetstream === undefined ? new CoreReader(config, ctx, out, decode) : new JetStreamReader(config, ctx, out, decode);
    let isStopped = false;
    link.get().then(
      // a source stopped while connecting never subscribes
      (nc) => (isStopped ? undefined : reader.start(nc)),
      (err: unknown) => out.fail(err),
    );
    return {
      drain: () => {
        isStopped = true;
        return reader.drain();
      },
      close: () => {
        isStopped = true;
        reader.close();
        void link.close();
      },
    };
  });
}

/** The subject and payload of a plain or JetStream message. */
function decodeMessage(m: Msg | JsMsg, decode: NatsMessageDecoder, ctx: SourceContext, out: SourceOutput): Event[] {
  out.received(m.data.length);
  const events: Event[] = [];
  decode(m.data, m.subject, ctx.scheduler.now(), events);
  return events;
}

interface Reader {
  start(nc: NatsConnection): void;
  drain(): Promise<void>;
  close(): void;
}

/** Plain NATS: one (queue) subscription. */
class CoreReader implements Reader {
  private sub: Subscription | undefined;

  constructor(
    private readonly config: NatsSourceConfig,
    private readonly ctx: SourceContext,
    private readonly out: SourceOutput,
    private readonly decode: NatsMessageDecoder,
  ) {}

  start(nc: NatsConnection): void {
    const callback = (err: Error | null, m: Msg) => {
      if (err !== null) return this.out.fail(err);
      this.out.emit(decodeMessage(m, this.decode, this.ctx, this.out));
    };
    this.sub = this.config.queue === undefined ? nc.subscribe(this.config.subject, { callback }) : nc.subscribe(this.config.subject, { queue: this.config.queue, callback });
  }

  /** Stops the interest at the server and takes the messages already on their way. */
  async drain(): Promise<void> {
    await this.sub?.drain().catch(() => undefined);
  }

  close(): void {
    this.sub?.unsubscribe();
  }
}

/** JetStream: pulls from a durable consumer, one settlement per message. */
class JetStreamReader implements Reader {
  private readonly events: NatsSourceEvents;
  private readonly stop$ = new Subject<void>();
  private current: ConsumerMessages | undefined;
  private stopped = false;
  private done: Promise<void> = Promise.resolve();

  constructor(
    private readonly config: NatsSourceConfig,
    private readonly ctx: SourceContext,
    private readonly out: SourceOutput,
    private readonly decode: NatsMessageDecoder,
  ) {
    this.events = natsSourceEvents(ctx);
  }

  start(nc: NatsConnection): void {
    const { stream, consumer } = this.config.jetstream!;
    nc.jetstream()
      .consumers.get(stream, consumer)
      .then(
        (c) => {
          if (this.stopped) return;
          this.done = new Promise<void>((resolve) => this.pulls(c).pipe(takeUntil(this.stop$)).subscribe({ complete: resolve, error: (err: unknown) => (this.out.fail(err), resolve()) }));
        },
        (err: unknown) => this.out.fail(err),
      );
  }

  /** One pull after another, each only while the output gate is open. */
  private pulls(c: Consumer): Observable<never> {
    const { batch, max_bytes: maxBytes } = this.config.jetstream!.batch_config;
    return pullWhile<never>(
      () =>
        defer(async () => {
          if (this.stopped) return undefined;
          try {
            const messages = await c.fetch(maxBytes > 0 ? { max_messages: batch, max_bytes: maxBytes, expires: PULL_EXPIRES_MS } : { max_messages: batch, expires: PULL_EXPIRES_MS });
            this.current = messages;
            // each message is emitted as it arrives; a pull holds at most `batch` of them
            for await (const m of messages) this.emit(m);
          } catch (err) {
            if (this.stopped) return undefined;
            this.events.fetchFailed(err, PULL_RETRY_MS);
            await new Promise<void>((resolve) => this.ctx.scheduler.schedule(() => resolve(), PULL_RETRY_MS));
          }
          return undefined;
        }),
      this.ctx.out,
    );
  }

  private emit(m: JsMsg): void {
    const events = decodeMessage(m, this.decode, this.ctx, this.out);
    this.out.emitEach([{ events, settled: (status) => this.settled(m, status) }]);
  }

  private settled(m: JsMsg, status: DeliveryStatus): void {
    try {
      if (status === 'delivered') m.ack();
      else {
        this.events.redeliveryAsked(status);
        m.nak();
      }
    } catch (err) {
      this.events.ackFailed(err);
    }
  }

  /** Ends the pull under way; messages already emitted still settle (and ack) while the connection stays open. */
  async drain(): Promise<void> {
    this.stopped = true;
    this.current?.stop();
    this.stop$.next();
    await this.done;
  }

  close(): void {
    this.stopped = true;
    this.current?.stop();
    this.stop$.next();
  }
}
