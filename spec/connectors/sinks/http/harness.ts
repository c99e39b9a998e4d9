/** Shared helpers of the http sink specs. */
import { type Observable, lastValueFrom, toArray } from 'rxjs';
import * as v from 'valibot';
import { HttpSinkConfig } from '../../../../connectors/sinks/http/config.js';
import { buildHttpSink } from '../../../../connectors/sinks/http/sink.js';
import { type Delivery, type EventBatch, type LogEvent, logEvent } from '../../../../lib/event.js';
import { type TestSinkContext, testSinkContext } from '../../../helpers/sink-context.js';

/** Parses a config the way the loader does (type and inputs added). */
export function httpConfig(uri: string, extra: Record<string, unknown> = {}): HttpSinkConfig {
  return v.parse(HttpSinkConfig, { type: 'http', inputs: ['in'], uri, encoding: {}, ...extra });
}

/** Fast timings for tests; the schema takes whole seconds, the sink any number. */
export function fast(config: HttpSinkConfig, over: Partial<HttpSinkConfig['request']> = {}): HttpSinkConfig {
  config.request = { ...config.request, retry_initial_backoff_secs: 0.01, retry_max_duration_secs: 0.05, timeout_secs: 2, ...over };
  return config;
}

export function makeEvents(n: number, from = 0): LogEvent[] {
  return Array.from({ length: n }, (_, i) => logEvent({ message: `m${from + i}`, i: from + i }));
}

/** Runs the sink over the given batches and collects its Deliveries. */
export async function runSink(config: HttpSinkConfig, input: Observable<EventBatch>, ctx: TestSinkContext = testSinkContext('http')): Promise<Delivery[]> {
  return lastValueFrom(input.pipe(buildHttpSink(config, ctx), toArray()));
}

export const count = (ds: readonly Delivery[], status: Delivery['status']) => ds.filter((d) => d.status === status).reduce((n, d) => n + d.events.length, 0);
