/** `demo_logs`: generates fake log lines, at an interval or as fast as backpressure allows. */
import * as v from 'valibot';
import { Observable } from 'rxjs';
import { defineSource } from '../../../lib/component.js';
import { type EventBatch, LogEvent, EventMetadata } from '../../../lib/event.js';
import { Timestamp } from '../../../lib/value.js';
import { waitOpen } from '../../../lib/gate.js';
import { uint } from '../../../lib/config/shared.js';
import { type DemoFormat, demoLine } from './lines.js';

export const DemoLogsConfig = v.strictObject({
  type: v.literal('demo_logs'),
  format: v.optional(v.picklist(['shuffle', 'apache_common', 'apache_error', 'syslog', 'bsd_syslog', 'json']), 'shuffle'),
    interval: v.optional(v.pipe(v.number(), v.minValue(0)), 1),
    count: v.optional(uint()),
    lines: v.optional(v.pipe(v.array(v.string()), v.minLength(1, 'must list at least one line'))),
    sequence: v.optional(v.boolean(), false),
    acknowledgements: v.optional(v.strictObject({ enabled: v.optional(v.boolean()) })),
});
export type DemoLogsConfig = v.InferOutput<typeof DemoLogsConfig>;

/** Events per emitted batch when running as fast as possible. */
const CHUNK = 1000;
const DEFAULT_SHUFFLE = ['Hello from weir', 'weir is a pipeline', 'RxJS all the way down', 'this is a demo line'];

export const demoLogsSource = defineSource({
  type: 'demo_logs',
  summary: 'Generate fake log events (shuffle, apache_common, apache_error, syslog, bsd_syslog, json).',
  schema: DemoLogsConfig,
  build: (config, ctx) =>
    new Observable<EventBatch>((subscriber) => {
      const limit = config.count ?? Infinity;
      const lines = config.lines ?? DEFAULT_SHUFFLE;
      const lineOf = (n: number, now: Date): string => {
        if (config.format !== 'shuffle') return demoLine(config.format as Exclude<DemoFormat, 'shuffle'>, now, Math.random);
        const line = lines[Math.floor(Math.random() * lines.length)]!;
        return config.sequence ? `${n} ${line}` : line;
      };
      const make = (n: number, now: Date, ts: Timestamp): LogEvent =>
        new LogEvent({ message: lineOf(n, now), timestamp: ts, host: 'localhost', service: 'weir', source_type: 'demo_logs' }, new EventMetadata(ctx.id, 'demo_logs'));
      let produced = 0;
      let stopped = false;
      if (config.interval > 0) {
        const tick = () => {
          if (stopped) return;
          if (produced >= limit) return subscriber.complete();
          const now = new Date(ctx.scheduler.now());
          subscriber.next([make(produced++, now, Timestamp.fromDate(now))]);
          if (produced >= limit) return subscriber.complete();
          const wait = waitOpen(ctx.out);
          if (wait) void wait.then(() => schedule());
          else schedule();
        };
        let action: { unsubscribe(): void } | undefined;
        const schedule = () => {
          if (!stopped) action = ctx.scheduler.schedule(tick, config.interval * 1000);
        };
        action = ctx.scheduler.schedule(tick, 0);
        return () => {
          stopped = true;
          action?.unsubscribe();
        };
      }
      // interval = 0: as fast as the pipeline takes them, one batch per turn of the event loop
      const burst = () => {
        if (stopped) return;
        const now = new Date();
        const ts = Timestamp.fromDate(now);
        const n = Math.min(CHUNK, limit - produced);
        const batch: EventBatch = new Array(n);
        for (let i = 0; i < n; i++) batch[i] = make(produced++, now, ts);
        if (n > 0) subscriber.next(batch);
        if (produced >= limit) return subscriber.complete();
        const wait = waitOpen(ctx.out);
        if (wait) void wait.then(() => setImmediate(burst));
        else setImmediate(burst);
      };
      setImmediate(burst);
      return () => {
        stopped = true;
      };
    }),
});
