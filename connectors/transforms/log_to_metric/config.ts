/**
 * Options of `log_to_metric` (Vector's transform): a list of metrics, each made from one log
 * field. `increment_by_value` and `kind` belong to counters only (gauges are absolute, sets,
 * histograms and summaries incremental), so on another type they are config errors.
 */
import * as v from 'valibot';
import { inputsSchema } from '../../../lib/config/options/envelope.js';
import { fieldPathSchema } from '../../../lib/config/options/field-path.js';
import { templateSchema } from '../../../lib/config/options/template.js';

const tagValue = v.union([v.null(), templateSchema('Tag value template.')]);

/** Options every metric type has. */
const common = {
  field: fieldPathSchema('Log field the metric is made from.', { empty: 'must name a field' }),
  name: v.optional(templateSchema('Metric name template; default the field path.')),
  namespace: v.optional(templateSchema('Metric namespace template.')),
  tags: v.optional(
    v.pipe(v.record(v.string(), v.union([tagValue, v.array(tagValue)])), v.description('Tag name -> value template; null makes a bare tag, a list a multi-valued tag.')),
  ),
};

const counter = v.strictObject({
  type: v.literal('counter'),
  ...common,
  increment_by_value: v.optional(v.pipe(v.boolean(), v.description('Add the field value instead of 1.')), false),
  kind: v.optional(v.picklist(['incremental', 'absolute']), 'incremental'),
});
const gauge = v.strictObject({ type: v.literal('gauge'), ...common });
const set = v.strictObject({ type: v.literal('set'), ...common });
const histogram = v.strictObject({ type: v.literal('histogram'), ...common });
const summary = v.strictObject({ type: v.literal('summary'), ...common });

/** One entry of `metrics`. */
export const MetricConfig = v.variant('type', [counter, gauge, set, histogram, summary]);
export type MetricConfig = v.InferOutput<typeof MetricConfig>;

/** Options of log_to_metric. */
export const LogToMetricConfig = v.strictObject({
  type: v.literal('log_to_metric'),
  inputs: inputsSchema,
  metrics: v.pipe(v.array(MetricConfig), v.minLength(1, 'must list at least one metric')),
});
export type LogToMetricConfig = v.InferOutput<typeof LogToMetricConfig>;
