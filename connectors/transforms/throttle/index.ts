/** `throttle` transform: rate-limits log events per key; drops the excess. */
import * as v from 'valibot';
import type { OperatorFunction } from 'rxjs';
import { type ComponentContext, defineTransform } from '../../../lib/component.js';
import type { EventBatch } from '../../../lib/event.js';
import { compileCondition, conditionSchema } from '../../../operators/conditions/index.js';
import { inputsSchema } from '../../../lib/config/options/envelope.js';
import { templateSchema } from '../../../lib/config/options/template.js';
import type { Counter } from '../../../lib/telemetry/registry.js';
import { type ThrottleEvents, throttle } from '../../../operators/transforms/throttle/index.js';

/** Options of throttle; `internal_metrics.emit_events_discarded_per_key` as in Vector. */
export const ThrottleConfig = v.strictObject({
  type: v.literal('throttle'),
  inputs: inputsSchema,
  threshold: v.pipe(v.number(), v.integer(), v.minValue(1, 'threshold must be non-zero')),
  window_secs: v.pipe(v.number(), v.gtValue(0, 'window_secs must be non-zero')),
  key_field: v.optional(templateSchema('Template of the key events are limited by, each key on its own; unset: one limit for all events.')),
  exclude: v.optional(conditionSchema),
  measure_cpu_usage: v.optional(v.boolean(), false),
  internal_metrics: v.optional(v.strictObject({ emit_events_discarded_per_key: v.optional(v.boolean(), false) }), {}),
  graph: v.optional(
    v.strictObject({
      edge_attributes: v.optional(v.record(v.string(), v.string())),
      node_attributes: v.optional(v.record(v.string(), v.string())),
    }),
  ),
});
export type ThrottleConfig = v.InferOutput<typeof ThrottleConfig>;

/** Reason tag of `events_discarded_total`. */
export const RATE_LIMIT_REASON = 'rate_limit_exceeded';

/** Vector's internal events of throttle: log and count together, handles bound once. */
function throttleEvents(config: ThrottleConfig, ctx: ComponentContext): ThrottleEvents {
  const intentional = ctx.telemetry.counter('component_discarded_events_total', { intentional: 'true' });
  const templateErrors = ctx.telemetry.counter('component_errors_total', { error_type: 'template_failed', stage: 'processing' });
  const perKey = config.internal_metrics.emit_events_discarded_per_key;
  const shared = perKey ? undefined : ctx.telemetry.counter('events_discarded_total', { reason: RATE_LIMIT_REASON });
  const byKey = new Map<string, Counter>();
  const keyed = (key: string): Counter => {
    let c = byKey.get(key);
    if (!c) {
      c = ctx.telemetry.counter('events_discarded_total', { reason: RATE_LIMIT_REASON, key });
      byKey.set(key, c);
    }
    return c;
  };
  const cpu = config.measure_cpu_usage ? ctx.telemetry.counter('component_cpu_usage_ns_total') : undefined;
  return {
    discarded(key) {
      intentional.add();
      if (shared) shared.add();
      else keyed(key ?? 'None').add();
      ctx.log.debug('Rate limit exceeded.', { key: key ?? 'None' });
    },
    templateFailed(missing) {
      templateErrors.add();
      ctx.log.error('Failed to render template for "key_field".', { missing_keys: missing.join(','), drop_event: false });
    },
    batchTimeNs: cpu && ((ns) => cpu.add(ns)),
  };
}

/** Builds throttle on the context's scheduler; the global timezone renders `%` items of key_field. */
export function buildThrottle(config: ThrottleConfig, ctx: ComponentContext): OperatorFunction<EventBatch, EventBatch> {
  return throttle({
    threshold: config.threshold,
    windowSecs: config.window_secs,
    keyField: config.key_field,
    exclude: config.exclude === undefined ? undefined : compileCondition(config.exclude, 'exclude', ctx.globals.timezone),
    timezone: ctx.globals.timezone,
    scheduler: ctx.scheduler,
    events: throttleEvents(config, ctx),
  });
}

/** The `throttle` component definition for the catalog. */
export const throttleTransform = defineTransform({
  type: 'throttle',
  summary: 'Rate-limit log events per key, dropping the excess.',
  schema: ThrottleConfig,
  input: 'log',
  build: buildThrottle,
});
