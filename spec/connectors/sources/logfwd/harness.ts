/** Runs a logfwd source outside a topology and collects what it emits. */
import * as v from 'valibot';
import { LogfwdSourceConfig, logfwdSource } from '../../../../connectors/sources/logfwd/index.js';
import type { LogEvent } from '../../../../lib/event.js';
import { until } from '../../../helpers/wait.js';
import { type TestSourceContext, testSourceContext } from '../source-context.js';

export interface RunningSource {
  readonly ctx: TestSourceContext;
  readonly port: number;
  /** Every event emitted so far, in order. */
  events(): LogEvent[];
  /** Fields as JSON (timestamps as RFC 3339 text). */
  json(): Record<string, unknown>[];
  stop(): void;
}

/** Starts the source on 127.0.0.1 port 0; `acknowledgements` as a sink downstream would ask. */
export async function startSource(options: Record<string, unknown> = {}, opts: { acknowledgements?: boolean } = {}): Promise<RunningSource> {
  const base = testSourceContext('logfwd');
  const ctx: TestSourceContext = { ...base, acknowledgements: opts.acknowledgements ?? false };
  const config = v.parse(LogfwdSourceConfig, { type: 'logfwd', address: '127.0.0.1:0', ...options });
  const batches: LogEvent[][] = [];
  const sub = logfwdSource.build(config, ctx).subscribe((b) => batches.push(b as LogEvent[]));
  await until(() => ctx.listeningAddress() !== undefined, 5000, 'listening');
  const addr = ctx.listeningAddress()!;
  return {
    ctx,
    port: Number(addr.slice(addr.lastIndexOf(':') + 1)),
    events: () => batches.flat(),
    json: () => batches.flat().map((e) => JSON.parse(JSON.stringify(e.fields)) as Record<string, unknown>),
    stop: () => sub.unsubscribe(),
  };
}
