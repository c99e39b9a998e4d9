/**
 * The http sink alone (no topology): 1,000-event batches of {message, timestamp} log events,
 * as a socket source would emit them, through `buildHttpSink` (ndjson, batches of 1,000, fixed
 * concurrency) to the consumer child process. Compare with http-baseline.ts.
 * Usage: npx tsx scripts/bench/http-sink.ts [events=1000000] [concurrency=4|adaptive]
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Observable, lastValueFrom, reduce } from 'rxjs';
import * as v from 'valibot';
import { HttpSinkConfig } from '../../connectors/sinks/http/config.js';
import { buildHttpSink } from '../../connectors/sinks/http/sink.js';
import { componentContext, sinkContext } from '../../lib/component-context.js';
import { type EventBatch, logEvent } from '../../lib/event.js';
import { GateController, waitOpen } from '../../lib/gate.js';
import { MetricsRegistry } from '../../lib/telemetry/registry.js';
import { Timestamp } from '../../lib/value.js';

const EVENTS = Number(process.argv[2] ?? 1_000_000);
const CONCURRENCY = process.argv[3] === 'adaptive' ? 'adaptive' : Number(process.argv[3] ?? 4);
const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));

const consumer = spawn(process.execPath, ['--import', 'tsx', here('./http-consumer.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise<number>((resolve) => {
  let out = '';
  consumer.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
    if (out.includes('\n')) resolve((JSON.parse(out) as { port: number }).port);
  });
});

const registry = new MetricsRegistry({});
const demand = new GateController(true);
const ctx = sinkContext(componentContext({ id: 'bench', kind: 'sink', type: 'http', registry }), { demand });
const config = v.parse(HttpSinkConfig, {
  type: 'http',
  inputs: ['in'],
  uri: `http://127.0.0.1:${port}/`,
  encoding: { codec: 'ndjson' },
  batch: { max_events: 1000 },
  request: { concurrency: CONCURRENCY },
});

// a pull source honouring the sink's demand, like the topology's drain loop
const source = new Observable<EventBatch>((subscriber) => {
  let made = 0;
  let stopped = false;
  const filler = 'x'.repeat(64);
  void (async () => {
    while (!stopped && made < EVENTS) {
      const wait = waitOpen(demand);
      if (wait) await wait;
      const n = Math.min(1000, EVENTS - made);
      const now = new Timestamp(Date.now());
      const batch: EventBatch = new Array(n);
      for (let i = 0; i < n; i++) batch[i] = logEvent({ message: `line ${made + i} ${filler} lorem ipsum dolor`, timestamp: now });
      made += n;
      subscriber.next(batch);
      await new Promise((r) => setImmediate(r));
    }
    subscriber.complete();
  })();
  return () => {
    stopped = true;
  };
});

const t0 = performance.now();
const delivered = await lastValueFrom(source.pipe(buildHttpSink(config, ctx), reduce((n, d) => n + (d.status === 'delivered' ? d.events.length : 0), 0)));
const secs = (performance.now() - t0) / 1000;
console.log(
  JSON.stringify({
    bench: 'http-sink',
    events: delivered,
    concurrency: CONCURRENCY,
    seconds: Number(secs.toFixed(3)),
    events_per_sec: Math.round(delivered / secs),
    node: process.version,
  }),
);
consumer.kill();
