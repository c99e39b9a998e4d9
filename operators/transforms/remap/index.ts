/**
 * The remap transform's per-batch work: runs a compiled remap program on every event (metrics
 * through the view of metric-target.ts).
 * An array result becomes one event per element, a non-object result the `message` field;
 * failed runs are dropped or forwarded unchanged (drop_on_error / drop_on_abort), optionally to
 * the `dropped` output with the reason in the event metadata (`%dropped`).
 */
import { Observable, type OperatorFunction } from 'rxjs';
import { type Event, type EventBatch, LogEvent, type RoutedBatch } from '../../../lib/event.js';
import { type ObjectValue, type Value, cloneValue, isObject } from '../../../lib/value.js';
import type { Program } from '../../../remap/index.js';
import { type TagMode, applyMetricValue, metricToValue } from './metric-target.js';

/** Name of the output that receives dropped events when reroute_dropped is on. */
export const DROPPED_OUTPUT = 'dropped';

/** Counters and logs of the transform, bound once per component, not per event. */
export interface RemapEvents {
  /** A run failed: `aborted` is true for `abort`; `dropped` whether the event is discarded. */
  failed(error: string, aborted: boolean, dropped: boolean): void;
}

/** What the operator needs: the compiled program, the drop/reroute policy and the telemetry hooks. */
export interface RemapOptions {
  readonly program: Program;
  readonly dropOnError: boolean;
  readonly dropOnAbort: boolean;
  readonly rerouteDropped: boolean;
  readonly componentId: string;
  readonly events: RemapEvents;
  /** How metric tags appear to the program (`metric_tag_values`); default `single`. */
  readonly metricTagValues?: TagMode | undefined;
}

/** Turns a program's resulting root into events: one per array element; a non-object goes under `message`. */
function eventsFrom(root: Value, meta: Value, template: LogEvent, out: Event[]): void {
  const metaValue = isObject(meta) ? meta : undefined;
  if (isObject(root)) {
    template.fields = root;
    template.meta.value = metaValue;
    out.push(template);
    return;
  }
  if (Array.isArray(root)) {
    for (let i = 0; i < root.length; i++) {
      const el = root[i]!;
      const fields: ObjectValue = isObject(el) ? el : { message: el };
      const m = i === 0 ? template.meta : template.meta.clone();
      m.value = metaValue && i > 0 ? (cloneValue(metaValue) as ObjectValue) : metaValue;
      out.push(new LogEvent(fields, m));
    }
    // an empty array yields no event: settle the original as delivered
    if (root.length === 0) template.meta.settle('delivered');
    return;
  }
  template.fields = { message: root };
  template.meta.value = metaValue;
  out.push(template);
}

/** The remap operator: one output batch (and one `dropped` batch) per input batch. */
export function remap(opts: RemapOptions): OperatorFunction<EventBatch, EventBatch | RoutedBatch> {
  const { program, dropOnError, dropOnAbort, rerouteDropped, events } = opts;
  const tagMode = opts.metricTagValues ?? 'single';
  // keep a pristine copy only when a failed run forwards the original event and may have changed it
  const forwardsFailed = !dropOnError || !dropOnAbort || rerouteDropped;
  const keepOriginal = program.abortsAfterWrite && forwardsFailed;
  // a metric's write-back can fail after any program that changed the metadata
  const keepMetricMeta = (program.abortable || program.mutatesEvent) && forwardsFailed;
  return (source) =>
    new Observable<EventBatch | RoutedBatch>((subscriber) =>
      source.subscribe({
        next(batch) {
          const out: Event[] = [];
          let dropped: Event[] | undefined;
          for (let i = 0; i < batch.length; i++) {
            const e = batch[i]!;
            const keep = e.type === 'metric' ? keepMetricMeta : keepOriginal;
            const originalMeta = keep && e.meta.value ? (cloneValue(e.meta.value) as ObjectValue) : e.meta.value;
            let error: string;
            let aborted: boolean;
            let original: ObjectValue | undefined;
            if (e.type === 'metric') {
              const r = program.run(metricToValue(e, tagMode), e.meta.value ?? {}, e.meta.secrets);
              const invalid = r.ok ? applyMetricValue(e, r.target, tagMode) : r.error;
              if (invalid === undefined) {
                e.meta.value = isObject(r.meta) ? r.meta : undefined;
                if (r.secrets) e.meta.secrets = r.secrets;
                out.push(e);
                continue;
              }
              error = invalid;
              aborted = !r.ok && r.aborted;
            } else {
              original = keepOriginal ? (cloneValue(e.fields) as ObjectValue) : undefined;
              const r = program.run(e.fields, e.meta.value ?? {}, e.meta.secrets);
              if (r.ok) {
                // the run's copy of the secrets replaces the event's (copies for array results share it: it is never changed in place)
                if (r.secrets) e.meta.secrets = r.secrets;
                eventsFrom(r.target, r.meta, e, out);
                continue;
              }
              error = r.error;
              aborted = r.aborted;
            }
            const drop = aborted ? dropOnAbort : dropOnError;
            events.failed(error, aborted, drop);
            if (keep) {
              if (original && e.type === 'log') e.fields = original;
              e.meta.value = originalMeta;
            }
            if (!drop) {
              out.push(e);
            } else if (rerouteDropped) {
              const meta = e.meta.value ?? {};
              meta.dropped = {
                reason: aborted ? 'abort' : 'error',
                message: error,
                component_id: opts.componentId,
                component_type: 'remap',
                component_kind: 'transform',
              };
              e.meta.value = meta;
              (dropped ??= []).push(e);
            } else {
              // a discarded event completes its acknowledgement
              e.meta.settle('delivered');
            }
          }
          if (out.length > 0) subscriber.next(out);
          if (dropped) subscriber.next({ output: DROPPED_OUTPUT, events: dropped });
        },
        error: (err) => subscriber.error(err),
        complete: () => subscriber.complete(),
      }),
    );
}

