/**
 * The `nats` sink as a composition of the request-sink skeleton. Each event is one message on
 * its rendered subject. Plain NATS: an attempt publishes its messages and flushes; the server's
 * answer to the flush's PING says it took every message before it. JetStream: each message is
 * a request to the stream and its acknowledgement (PubAck) is the delivery; messages without one
 * are published again, so delivery is at least once.
 */
import type { JetStreamClient } from 'nats';
import type { OperatorFunction } from 'rxjs';
import type { SinkContext } from '../../../lib/component.js';
import type { Delivery, EventBatch } from '../../../lib/event.js';
import { NatsLink, natsClient, natsConnectionOptions } from '../../shared/nats/connect.js';
import { requestSink } from '../../shared/request-sink.js';
import type { NatsSinkConfig } from './config.js';
import { type NatsMessage, createNatsEncoder } from './encoder.js';
import { type NatsOutcomes, type NatsRequest, buildNatsRequest, classifyOutcomes } from './request.js';

/** Messages per attempt: what is at hand, up to this many (the sink has no batch options). */
export const MAX_MESSAGES_PER_ATTEMPT = 100;
/** Bytes per attempt, so one attempt stays well under the client's outbound buffer. */
const MAX_BYTES_PER_ATTEMPT = 4 * 1024 * 1024;

/** Client errors that no later attempt can fix: the message or its subject is at fault. */
/** The client's codes of errors a retry cannot mend; read when the first error is classified. */
let finalCodes: Set<string> | undefined;
const FINAL_CODES = (): Set<string> => {
  const { ErrorCode } = natsClient();
  return (finalCodes ??= new Set<string>([ErrorCode.MaxPayloadExceeded, ErrorCode.BadSubject, ErrorCode.BadPayload, ErrorCode.InvalidPayload, ErrorCode.BadHeader]));
};

/** Whether a message's error is for good (refused) rather than worth another attempt. */
export const isFinalNatsError = (err: unknown): boolean => err instanceof natsClient().NatsError && FINAL_CODES().has((err as { code: string }).code);

/** Builds the sink; `link` replaces the connection made from the options (tests). */
export function buildNatsSink(config: NatsSinkConfig, ctx: SinkContext, link = new NatsLink(natsConnectionOptions(config))): OperatorFunction<EventBatch, Delivery> {
  const encoder = createNatsEncoder(config, ctx.globals.log_schema);
  const timeoutMs = config.request.timeout_secs * 1000;
  // one JetStream context per connection; a new connection gets a new one
  const streams = new WeakMap<object, JetStreamClient>();
  const publish = async (req: NatsRequest): Promise<NatsOutcomes> => {
    const nc = await link.get();
    const outcomes: NatsOutcomes = new Array<Error | undefined>(req.messages.length).fill(undefined);
    if (!config.jetstream.enabled) {
      for (let i = 0; i < req.messages.length; i++) {
        const m = req.messages[i]!;
        try {
          nc.publish(m.subject, m.payload);
        } catch (err) {
          outcomes[i] = err as Error;
        }
      }
      await nc.flush();
      return outcomes;
    }
    let js = streams.get(nc);
    if (js === undefined) streams.set(nc, (js = nc.jetstream({ timeout: timeoutMs })));
    const client = js;
    const acks = await Promise.allSettled(req.messages.map((m) => client.publish(m.subject, m.payload, publishOptions(m, timeoutMs))));
    for (let i = 0; i < acks.length; i++) {
      const a = acks[i]!;
      if (a.status === 'rejected') outcomes[i] = a.reason instanceof Error ? a.reason : new Error(String(a.reason));
    }
    return outcomes;
  };
  return requestSink<NatsMessage, NatsRequest, NatsOutcomes>(
    {
      encode: encoder.encode,
      // the subject renders where partition keys do, so a missing field rejects that one event as template_failed
      partition: (m) => {
        encoder.renderSubject(m);
        return '';
      },
      build: (items) => buildNatsRequest(items),
      send: (req) => publish(req),
      classify: (outcomes, req) => classifyOutcomes(outcomes, req, isFinalNatsError),
      isRetriableError: (err) => !isFinalNatsError(err),
      close: () => link.close(),
    },
    { limits: { maxEvents: MAX_MESSAGES_PER_ATTEMPT, maxBytes: MAX_BYTES_PER_ATTEMPT, timeoutMs: 0 }, request: config.request },
    ctx,
  );
}

/** JetStream publish options of one message: the ack wait, and the Nats-Msg-Id header when rendered. */
function publishOptions(m: NatsMessage, timeoutMs: number): { timeout: number; msgID?: string } {
  return m.messageId === undefined ? { timeout: timeoutMs } : { timeout: timeoutMs, msgID: m.messageId };
}

/** As Vector checks: one connection to the servers (with the sink's auth and TLS), never retried. */
export async function natsHealthcheck(config: NatsSinkConfig): Promise<void> {
  if (config.healthcheck.enabled === false) return;
  const nc = await natsClient().connect(
    natsConnectionOptions(config, { waitOnFirstConnect: false, reconnect: false, maxReconnectAttempts: 0, timeout: config.request.timeout_secs * 1000 }),
  );
  await nc.close();
}

