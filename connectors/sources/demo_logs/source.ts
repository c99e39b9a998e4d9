/**
 * The `demo_logs` source: fake log lines at an interval, or as fast as backpressure allows. Each
 * line goes through the source's framing and decoding, and events carry the global log_schema's
 * field names; `host` and `service` are added where the decoded event has none (as Vector).
 */
import { Observable, type Observable as Obs, of, takeWhile } from 'rxjs';
import { streamDecoderFactory } from '../../../lib/codecs/index.js';
import type { SourceContext } from '../../../lib/component.js';
import { type Event, type EventBatch, EventMetadata, LogEvent } from '../../../lib/event.js';
import { pullWhile } from '../../../lib/gate.js';
import type { ObjectValue } from '../../../lib/value.js';
import { Timestamp } from '../../../lib/value.js';
import { pullEvery, runSource } from '../../shared/source/index.js';
import type { DemoLogsConfig } from './config.js';
import { type DemoFormat, demoLine } from './lines.js';

/** Events per emitted batch when running as fast as possible. */
const CHUNK = 1000;
const DEFAULT_SHUFFLE = ['Hello from weir', 'weir is a pipeline', 'RxJS all the way down', 'this is a demo line'];
const HOST = 'localhost';
const SERVICE = 'weir';

/** Turns generated lines into events; `ts` is the time of the batch. */
type MakeEvents = (line: string, ts: Timestamp, out: Event[]) => void;

/** The bytes/bytes default needs no decoder: the line is the message. */
function plainEvents(ctx: SourceContext): MakeEvents {
  const { message_key: mk, timestamp_key: tk, host_key: hk, source_type_key: stk } = ctx.globals.log_schema;
  return (line, ts, out) => {
    // keys in one order for every event; an empty log_schema key means the field is not written
    const f: ObjectValue = {};
    if (mk) f[mk] = line;
    if (tk) f[tk] = ts;
    if (hk) f[hk] = HOST;
    f.service = SERVICE;
    if (stk) f[stk] = 'demo_logs';
    out.push(new LogEvent(f, new EventMetadata(ctx.id, 'demo_logs')));
  };
}

/** Any other framing or decoding: each line is one input to a fresh decoder (decode errors are counted and skipped). */
function decodedEvents(config: DemoLogsConfig, ctx: SourceContext): MakeEvents {
  const factory = streamDecoderFactory(ctx, { framing: config.framing, decoding: config.decoding, sourceType: 'demo_logs' });
  return (line, _ts, out) => {
    const decoder = factory();
    decoder.stamp.host = HOST;
    const events = [...decoder.push(Buffer.from(line, 'utf8')), ...decoder.end()];
    for (const e of events) {
      if (e.type === 'log' && e.fields.service === undefined) e.fields.service = SERVICE;
      out.push(e);
    }
  };
}

/** Builds the source. */
export function buildDemoLogsSource(config: DemoLogsConfig, ctx: SourceContext): Obs<EventBatch> {
  return runSource(ctx, {}, (out) => {
    const limit = config.count ?? Infinity;
    const lines = config.lines ?? DEFAULT_SHUFFLE;
    const isPlain = config.decoding.codec === 'bytes' && config.framing.method === 'bytes';
    const make = isPlain ? plainEvents(ctx) : decodedEvents(config, ctx);
    const lineOf = (n: number, now: Date): string => {
      if (config.format !== 'shuffle') return demoLine(config.format as Exclude<DemoFormat, 'shuffle'>, now, Math.random);
      const line = lines[Math.floor(Math.random() * lines.length)]!;
      return config.sequence ? `${n} ${line}` : line;
    };
    let produced = 0;
    /** Up to `n` lines at time `now`; their bytes count as received, as Vector counts a generated line. */
    const generate = (n: number, now: Date): EventBatch => {
      const ts = Timestamp.fromDate(now);
      const batch: Event[] = [];
      let bytes = 0;
      for (let i = 0; i < n && produced < limit; i++) {
        const line = lineOf(produced++, now);
        bytes += line.length;
        make(line, ts, batch);
      }
      out.received(bytes);
      return batch;
    };
    if (limit <= 0) return out.complete();
    // interval > 0: one line per interval; 0: as fast as the pipeline takes them, one batch per turn of the event loop
    const lines$ =
      config.interval > 0
        ? pullEvery(config.interval * 1000, () => of(generate(1, new Date(ctx.scheduler.now()))), ctx.out, ctx.scheduler)
        : pullWhile(() => of(generate(CHUNK, new Date())), ctx.out, nextTurn);
    const sub = lines$.pipe(takeWhile(() => produced < limit, true)).subscribe({ next: (batch) => out.emit(batch), complete: () => out.complete() });
    return { close: () => sub.unsubscribe() };
  });
}

/** Emits once on the next turn of the event loop (after pending I/O), so a burst never starves it. */
function nextTurn(): Observable<void> {
  return new Observable<void>((s) => {
    const handle = setImmediate(() => {
      s.next();
      s.complete();
    });
    return () => clearImmediate(handle);
  });
}
