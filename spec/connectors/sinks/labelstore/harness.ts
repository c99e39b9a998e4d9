/** Shared helpers of the labelstore sink specs. */
import { type Observable, lastValueFrom, toArray } from 'rxjs';
import * as v from 'valibot';
import { pushRequestType } from '../../../../connectors/shared/labelstore/push-proto.js';
import { LabelstoreConfig } from '../../../../connectors/sinks/labelstore/config.js';
import { buildLabelstoreSink } from '../../../../connectors/sinks/labelstore/sink.js';
import { type Delivery, type EventBatch, type LogEvent, logEvent } from '../../../../lib/event.js';
import { snappyUncompress } from '../../../../lib/net/snappy.js';
import { Timestamp, type Value } from '../../../../lib/value.js';
import { type TestSinkContext, testSinkContext } from '../../../helpers/sink-context.js';

const PushRequest = pushRequestType();

/** Parses a config the way the loader does; one label and the json codec unless given. */
export function lsConfig(endpoint: string, extra: Record<string, unknown> = {}): LabelstoreConfig {
  return v.parse(LabelstoreConfig, { type: 'labelstore', inputs: ['in'], endpoint, labels: { app: '{{ app }}' }, encoding: { codec: 'json' }, ...extra });
}

/** Fast timings for tests; the schema takes whole seconds, the sink any number. */
export function fast(config: LabelstoreConfig, over: Partial<LabelstoreConfig['request']> = {}): LabelstoreConfig {
  config.request = { ...config.request, retry_initial_backoff_secs: 0.01, retry_max_duration_secs: 0.05, timeout_secs: 5, ...over };
  return config;
}

/** 2023-11-14T22:13:20Z plus `ms` milliseconds and 11 ns. */
export const at = (ms = 0) => new Timestamp(1_700_000_000_000 + ms, 11);
/** {@link at} in epoch nanoseconds. */
export const atNs = (ms = 0) => BigInt(1_700_000_000_000 + ms) * 1_000_000n + 11n;

/** A log event of app `web` at `at(ms)` (no timestamp with `ms` null). */
export function log(message: string, ms: number | null = 0, fields: Record<string, Value> = {}): LogEvent {
  return logEvent({ message, app: 'web', ...(ms === null ? {} : { timestamp: at(ms) }), ...fields });
}

/** Runs the sink over the given batches and collects its Deliveries. */
export async function runSink(config: LabelstoreConfig, input: Observable<EventBatch>, ctx: TestSinkContext = testSinkContext('labelstore')): Promise<Delivery[]> {
  return lastValueFrom(input.pipe(buildLabelstoreSink(config, ctx), toArray()));
}

/** Events per status over all deliveries. */
export const count = (ds: readonly Delivery[], status: Delivery['status']) => ds.filter((d) => d.status === status).reduce((n, d) => n + d.events.length, 0);

/** A protobuf push body as plain data: label text, then [nanoseconds, line] per entry. */
export function decodeProtobuf(body: Buffer): { labels: string; entries: [string, string][] }[] {
  const msg = PushRequest.toObject(PushRequest.decode(snappyUncompress(body)), { longs: String, defaults: true }) as {
    streams: { labels: string; entries: { timestamp: { seconds: string; nanos: number }; line: string }[] }[];
  };
  return msg.streams.map((s) => ({
    labels: s.labels,
    entries: s.entries.map((e) => [String(BigInt(e.timestamp.seconds) * 1_000_000_000n + BigInt(e.timestamp.nanos)), e.line]),
  }));
}
