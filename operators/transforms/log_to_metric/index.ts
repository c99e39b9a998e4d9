/**
 * `log_to_metric`: makes metric events from log events, as Vector's transform does. Each
 * configured metric reads one field: a counter counts the event (or adds the field's number with
 * `incrementByValue`), a gauge takes the number, a set the text, a histogram or summary one
 * sample. Each metric of an event stands alone: a missing or null field, a value that is not a
 * number where one is needed, or a name that does not render drops that metric only. Timestamps
 * come from the event (`timestamp` field), else the scheduler's now. The log events themselves
 * are not passed on; one that made no metric is settled as delivered (an intentional end).
 */
import { type OperatorFunction, type SchedulerLike, asyncScheduler, filter, map, pipe } from 'rxjs';
import { type Event, type EventBatch, type LogEvent } from '../../../lib/event.js';
import { type Path, getPath, parsePath } from '../../../lib/path.js';
import { Timestamp } from '../../../lib/value.js';
import { type CompiledMetric, type MetricFailure, type MetricSpec, compileMetric } from './compile.js';

export { type CompiledMetric, type LogMetricType, type MetricFailure, type MetricSpec, type TagSpec, compileMetric } from './compile.js';
export { numberOf } from './number.js';

/** Hooks for internal events; all optional. */
export interface LogToMetricEvents {
  /** One metric of one event was not made. */
  failed?(failure: MetricFailure): void;
  /** A tag value did not render; the metric was made without it. */
  tagFailed?(tag: string, missing: string[]): void;
  /** Log events that made no metric at all. */
  noMetrics?(count: number): void;
}

/** Options of {@link logToMetric}, the config in camelCase. */
export interface LogToMetricOptions {
  metrics: readonly MetricSpec[];
  /** Path of the event timestamp (the global `log_schema.timestamp_key`); default `timestamp`. */
  timestampKey?: string;
  /** Zone for strftime items of the templates. */
  timezone?: string;
  /** The clock for events without a timestamp. */
  scheduler?: SchedulerLike;
  events?: LogToMetricEvents;
}

/** Converts one batch; exposed for benchmarks and callers without RxJS. Never returns log events. */
export function compileLogToMetric(options: LogToMetricOptions): (batch: EventBatch) => Event[] {
  const compiled: CompiledMetric[] = options.metrics.map(compileMetric);
  const tsPath: Path = parsePath(options.timestampKey ?? 'timestamp');
  const scheduler = options.scheduler ?? asyncScheduler;
  const { timezone, events } = options;
  const failed = events?.failed;
  const tagFailed = events?.tagFailed;

  return (batch) => {
    const out: Event[] = [];
    let now: Timestamp | undefined;
    let empty = 0;
    for (let i = 0; i < batch.length; i++) {
      const e = batch[i]!;
      if (e.type !== 'log') {
        out.push(e); // only logs are wired here; anything else passes untouched
        continue;
      }
      const t = getPath(e.fields, tsPath);
      const timestamp = t instanceof Timestamp ? t : (now ??= new Timestamp(Math.floor(scheduler.now())));
      let claimed = false;
      for (let m = 0; m < compiled.length; m++) {
        const r = compiled[m]!.convert(e as LogEvent, claimed, timestamp, timezone, tagFailed);
        if ('reason' in r) {
          failed?.(r);
          continue;
        }
        claimed = true;
        out.push(r);
      }
      if (!claimed) {
        empty++;
        e.meta.settle('delivered');
      }
    }
    if (empty > 0) events?.noMetrics?.(empty);
    return out;
  };
}

/** The transform as an operator; never emits an empty batch. */
export function logToMetric(options: LogToMetricOptions): OperatorFunction<EventBatch, EventBatch> {
  const convert = compileLogToMetric(options);
  return pipe(
    map(convert),
    filter((b) => b.length > 0),
  );
}
