/** `log_to_metric` transform (Vector's): makes metric events from fields of log events. */
import type { OperatorFunction } from 'rxjs';
import { type ComponentContext, defineTransform } from '../../../lib/component.js';
import type { EventBatch } from '../../../lib/event.js';
import { type LogToMetricEvents, type MetricSpec, logToMetric } from '../../../operators/transforms/log_to_metric/index.js';
import { LogToMetricConfig, type MetricConfig } from './config.js';

export { LogToMetricConfig, MetricConfig } from './config.js';

/** Vector's internal events of log_to_metric: log and count together, handles bound once. */
function logToMetricEvents(ctx: ComponentContext): LogToMetricEvents {
  const errors = (error_type: string, error_code: string) => ctx.telemetry.counter('component_errors_total', { error_type, error_code, stage: 'processing' });
  const missing = errors('condition_failed', 'field_not_found');
  const nulls = errors('condition_failed', 'field_null');
  const notNumber = errors('parser_failed', 'failed_parsing_float');
  const template = ctx.telemetry.counter('component_errors_total', { error_type: 'template_failed', stage: 'processing' });
  const dropped = ctx.telemetry.counter('component_discarded_events_total', { intentional: 'false' });
  return {
    failed(f) {
      switch (f.reason) {
        case 'field_missing':
          missing.add();
          ctx.log.error('Field does not exist.', { field: f.field, error_code: 'field_not_found' });
          break;
        case 'field_null':
          nulls.add();
          ctx.log.error('Unable to convert null field.', { null_field: f.field, error_code: 'field_null' });
          break;
        case 'not_a_number':
          notNumber.add();
          ctx.log.error('Failed to parse field as float.', { field: f.field, error: `invalid float literal: ${JSON.stringify(f.value)}`, error_code: 'failed_parsing_float' });
          break;
        case 'template_failed':
          template.add();
          ctx.log.error(`Failed to render template for "${f.option}".`, { missing_keys: f.missing.join(','), drop_event: true });
          break;
      }
    },
    tagFailed(tag, missingFields) {
      template.add();
      ctx.log.error(`Failed to render template for tag "${tag}".`, { missing_keys: missingFields.join(','), drop_event: false });
    },
    noMetrics(count) {
      dropped.add(count);
    },
  };
}

/** The metric entries in camelCase for the operator. */
const specOf = (m: MetricConfig): MetricSpec => ({
  type: m.type,
  field: m.field,
  name: m.name,
  namespace: m.namespace,
  tags: m.tags,
  incrementByValue: m.type === 'counter' ? m.increment_by_value : undefined,
  kind: m.type === 'counter' ? m.kind : undefined,
});

/** Builds log_to_metric; templates use the global timezone, timestamps the global `log_schema.timestamp_key`. */
export function buildLogToMetric(config: LogToMetricConfig, ctx: ComponentContext): OperatorFunction<EventBatch, EventBatch> {
  return logToMetric({
    metrics: config.metrics.map(specOf),
    timestampKey: ctx.globals.log_schema.timestamp_key,
    timezone: ctx.globals.timezone,
    scheduler: ctx.scheduler,
    events: logToMetricEvents(ctx),
  });
}

/** The `log_to_metric` component definition for the catalog. */
export const logToMetricTransform = defineTransform({
  type: 'log_to_metric',
  summary: 'Make metric events (counter, gauge, set, histogram, summary) from log fields.',
  schema: LogToMetricConfig,
  input: 'log',
  outputs: () => [{ type: 'metric' as const }],
  build: buildLogToMetric,
});
