/** Shared helpers of the nats sink specs. */
import { type NatsConnection, StringCodec, connect } from 'nats';
import { type Observable, lastValueFrom, toArray } from 'rxjs';
import * as v from 'valibot';
import { NatsSinkConfig } from '../../../../connectors/sinks/nats/config.js';
import { buildNatsSink } from '../../../../connectors/sinks/nats/sink.js';
import type { Delivery, EventBatch } from '../../../../lib/event.js';
import { type TestSinkContext, testSinkContext } from '../../../helpers/sink-context.js';

/** Parses a config the way the loader does; json encoding unless given. */
export function natsSinkConfig(url: string, subject: string, extra: Record<string, unknown> = {}): NatsSinkConfig {
  return v.parse(NatsSinkConfig, { type: 'nats', inputs: ['in'], url, subject, encoding: { codec: 'json' }, ...extra });
}

/** Fast retries for tests (the schema takes whole seconds, the sink any number). */
export function fast(config: NatsSinkConfig, over: Partial<NatsSinkConfig['request']> = {}): NatsSinkConfig {
  config.request = { ...config.request, retry_initial_backoff_secs: 0.05, retry_max_duration_secs: 0.2, timeout_secs: 2, ...over };
  return config;
}

/** Runs the sink over the given batches and collects its Deliveries. */
export async function runSink(config: NatsSinkConfig, input: Observable<EventBatch>, ctx: TestSinkContext = testSinkContext('nats')): Promise<Delivery[]> {
  return lastValueFrom(input.pipe(buildNatsSink(config, ctx), toArray()));
}

/** Events per status over all deliveries. */
export const count = (ds: readonly Delivery[], status: Delivery['status']) => ds.filter((d) => d.status === status).reduce((n, d) => n + d.events.length, 0);

let serial = 0;
/** A unique name part per test, so tests on the shared server never see each other's messages. */
export const unique = (prefix: string) => `${prefix}${process.pid}x${++serial}`;

/** Messages received on a subscription, as subject and text. */
export interface Received {
  readonly subject: string;
  readonly text: string;
}

/** Subscribes an anonymous client to `subject` and collects what arrives; the subscription is live once this resolves. */
export async function collect(url: string, subject: string): Promise<{ received: Received[]; close(): Promise<void>; nc: NatsConnection }> {
  const nc = await connect({ servers: url });
  const received: Received[] = [];
  const sc = StringCodec();
  nc.subscribe(subject, { callback: (_err, m) => received.push({ subject: m.subject, text: sc.decode(m.data) }) });
  await nc.flush();
  return { received, nc, close: () => nc.close() };
}

/** Every message of a stream, in sequence order, as text. */
export async function streamTexts(nc: NatsConnection, stream: string): Promise<string[]> {
  const jsm = await nc.jetstreamManager();
  const info = await jsm.streams.info(stream);
  const sc = StringCodec();
  const texts: string[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(stream, { seq });
    texts.push(sc.decode(m.data));
  }
  return texts;
}
