/**
 * The `cloudg_pubsub` source: pull loops over the REST API. Vector holds gRPC streaming pulls
 * open; weir pulls in a loop instead, for two reasons: a pull is asked for only while the output
 * gate is open, so a full buffer downstream stops the reading within one answer (a stream keeps
 * pushing messages that would wait in memory), and the calls go through the same HTTP service,
 * credentials, `tls` and `proxy` as the `cloudg_*` sinks. The loops scale as Vector's streams do:
 * one at first; every `poll_time_seconds`, when the last answer of every loop held at least
 * `full_response_size` messages, another starts, up to `max_concurrency`; a loop whose pull comes
 * back empty after nothing for `keepalive_secs` ends unless it is the last one.
 *
 * A pull waits until the service answers (it ends an empty long poll by itself); weir never cuts
 * one early, since the service may already have handed out messages for an answer nobody reads,
 * and those would come back only after the subscription's deadline. Only a stop, or a connection
 * silent for {@link PULL_LIMIT_MS}, cuts a pull.
 *
 * Each pulled message gets the deadline `ack_deadline_secs` (one modifyAckDeadline per answer)
 * and settles on its own: acknowledged once every copy of its events was delivered (with
 * end-to-end acknowledgements; without them once they are in the buffers downstream), otherwise
 * left alone, so the service delivers it again after the deadline. A message whose data yields no
 * event is acknowledged: it would never yield one.
 */
import { type Observable, Subject, type Subscription, defer, interval, takeUntil } from 'rxjs';
import type { SourceContext } from '../../../lib/component.js';
import type { DeliveryStatus, Event, EventBatch } from '../../../lib/event.js';
import { pullWhile } from '../../../lib/gate.js';
import { type SettledPart, type SourceOutput, type TurnBatcher, Unsettled, runSource } from '../../shared/source/index.js';
import { createAcker } from './acker.js';
import type { CloudgPubsubSourceConfig } from './config.js';
import { type PubsubMessageDecoder, createPubsubDecoder } from './decode.js';
import { type PubsubSourceEvents, pubsubSourceEvents } from './events.js';
import { type ReceivedMessage, type SubscriptionClient, createSubscriptionClient } from './subscription.js';

/** A pull with no answer after this long is taken for a dead connection (the service ends an empty long poll within about 90 s). */
const PULL_LIMIT_MS = 180_000;
/** Time limit of one acknowledge or modifyAckDeadline call. */
const ACK_TIMEOUT_MS = 30_000;

/** Builds the source; `client` replaces the one made from the options (tests). */
export function buildCloudgPubsubSource(config: CloudgPubsubSourceConfig, ctx: SourceContext, client?: SubscriptionClient): Observable<EventBatch> {
  const protocol = new URL(config.endpoint).protocol.replace(':', '');
  // a sink downstream asks for acknowledgements, or the source's own switch does
  return runSource(ctx, { protocol, acknowledgements: config.acknowledgements.enabled === true }, (out) => {
    const puller = new Puller(config, ctx, out, client ?? createSubscriptionClient(config, ctx), client !== undefined);
    puller.start();
    return { drain: () => puller.drain(), close: () => puller.close() };
  });
}

/** One pull loop: whether its last answer was full, and the signal that ends it. */
interface Loop {
  isBusy: boolean;
  /** When it last received a message (scheduler time). */
  receivedAt: number;
  readonly end$: Subject<void>;
  sub?: Subscription;
}

/** The loops, the autoscaler and the messages awaiting delivery of one source. */
class Puller {
  private readonly events: PubsubSourceEvents;
  private readonly decode: PubsubMessageDecoder;
  private readonly acks: TurnBatcher<string>;
  private readonly deadlines: TurnBatcher<string>;
  private readonly stop = new AbortController();
  private readonly unsettled = new Unsettled();
  private readonly loops = new Set<Loop>();
  private scaler: Subscription | undefined;
  private isClosed = false;

  constructor(
    private readonly config: CloudgPubsubSourceConfig,
    private readonly ctx: SourceContext,
    private readonly out: SourceOutput,
    private readonly client: SubscriptionClient,
    /** A client given by the caller stays open: the caller owns it. */
    private readonly isBorrowed: boolean,
  ) {
    this.events = pubsubSourceEvents(ctx);
    this.decode = createPubsubDecoder(config, ctx);
    this.acks = createAcker('acknowledge', (ids, signal) => client.acknowledge(ids, signal), this.events, ACK_TIMEOUT_MS);
    const deadline = config.ack_deadline_secs;
    this.deadlines = createAcker('modifyAckDeadline', (ids, signal) => client.modifyAckDeadline(ids, deadline, signal), this.events, ACK_TIMEOUT_MS);
  }

  start(): void {
    this.startLoop();
    this.scaler = interval(this.config.poll_time_seconds * 1000, this.ctx.scheduler).subscribe(() => {
      if (this.loops.size >= this.config.max_concurrency) return;
      for (const l of this.loops) if (!l.isBusy) return;
      this.startLoop();
    });
  }

  /**
   * Stops pulling at once, also loops waiting for the output gate to open. A pull under way is
   * cut: messages the service handed out for it come back after the subscription's deadline.
   * Messages already emitted settle as their events are delivered.
   */
  drain(): Promise<void> {
    this.scaler?.unsubscribe();
    this.stop.abort();
    for (const l of [...this.loops]) this.endLoop(l);
    return Promise.resolve();
  }

  /** Stops everything; the client is kept until the last message settled and its acknowledgement went out. */
  close(): void {
    this.scaler?.unsubscribe();
    this.stop.abort();
    for (const l of [...this.loops]) this.endLoop(l);
    this.isClosed = true;
    this.release();
  }

  private startLoop(): void {
    const loop: Loop = { isBusy: false, receivedAt: this.ctx.scheduler.now(), end$: new Subject<void>() };
    this.loops.add(loop);
    this.events.loopsChanged(this.loops.size);
    loop.sub = pullWhile(() => defer(() => this.pullOnce(loop)), this.ctx.out)
      .pipe(takeUntil(loop.end$))
      .subscribe({ next: (parts) => this.out.emitEach(parts), complete: () => this.endLoop(loop) });
  }

  private endLoop(loop: Loop): void {
    if (!this.loops.delete(loop)) return;
    loop.end$.next();
    loop.sub?.unsubscribe();
    if (!this.stop.signal.aborted) this.events.loopsChanged(this.loops.size);
  }

  /** One pull; undefined when it brought nothing (empty, cut, failed). */
  private async pullOnce(loop: Loop): Promise<SettledPart[] | undefined> {
    if (this.stop.signal.aborted) {
      this.endLoop(loop);
      return undefined;
    }
    let messages: ReceivedMessage[];
    try {
      messages = await this.client.pull(AbortSignal.any([this.stop.signal, AbortSignal.timeout(PULL_LIMIT_MS)]));
    } catch (err) {
      if (this.stop.signal.aborted) this.endLoop(loop);
      else {
        const wait = this.config.retry_delay_secs * 1000;
        this.events.pullFailed(err, wait);
        await this.pause(wait);
      }
      return undefined;
    }
    if (messages.length === 0) {
      this.idle(loop);
      return undefined;
    }
    loop.isBusy = messages.length >= this.config.full_response_size;
    loop.receivedAt = this.ctx.scheduler.now();
    for (let i = 0; i < messages.length; i++) this.deadlines.add(messages[i]!.ackId);
    return this.parts(messages);
  }

  /** An empty answer: the loop is not busy; idle for keepalive_secs, it ends unless it is the last one. */
  private idle(loop: Loop): void {
    loop.isBusy = false;
    if (this.loops.size > 1 && this.ctx.scheduler.now() - loop.receivedAt >= this.config.keepalive_secs * 1000) this.endLoop(loop);
  }

  private parts(messages: readonly ReceivedMessage[]): SettledPart[] {
    const parts = new Array<SettledPart>(messages.length);
    const now = this.ctx.scheduler.now();
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]!;
      const events: Event[] = [];
      this.out.received(this.decode(m, now, events));
      const ackId = m.ackId;
      parts[i] = { events, settled: this.unsettled.wrap((status) => this.settled(ackId, status)) };
    }
    return parts;
  }

  private settled(ackId: string, status: DeliveryStatus): void {
    if (status === 'delivered') this.acks.add(ackId);
    else this.events.keptForRedelivery(status);
    this.release();
  }

  private release(): void {
    if (!this.isClosed || this.unsettled.count > 0 || this.isBorrowed) return;
    void Promise.all([this.acks.idle(), this.deadlines.idle()]).then(() => this.client.close());
  }

  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const action = this.ctx.scheduler.schedule(() => resolve(), ms);
      this.stop.signal.addEventListener('abort', () => (action.unsubscribe(), resolve()), { once: true });
    });
  }
}
