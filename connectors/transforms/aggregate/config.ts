/** Options of the `aggregate` transform (names, defaults and modes as Vector's). */
import * as v from 'valibot';
import { inputsSchema } from '../../../lib/config/options/envelope.js';
import { posint } from '../../../lib/config/options/numbers.js';

/** Vector's aggregation modes, spelt as Vector's configuration spells them. */
export const AGGREGATION_MODES = ['Auto', 'Sum', 'Latest', 'Count', 'Diff', 'Max', 'Min', 'Mean', 'Stdev'] as const;
/** One aggregation mode. */
export type AggregationMode = (typeof AGGREGATION_MODES)[number];

/** The `aggregate` transform options. */
export const AggregateConfig = v.strictObject({
  type: v.literal('aggregate'),
  inputs: inputsSchema,
  interval_ms: v.optional(v.pipe(posint(), v.description('Milliseconds between flushes; metrics of one series are aggregated within one interval.')), 10_000),
  mode: v.optional(
    v.pipe(
      v.picklist(AGGREGATION_MODES, `must be one of ${AGGREGATION_MODES.join(', ')}`),
      v.description('Auto sums incremental metrics and keeps the latest absolute value; the others apply to one kind and pass the other kind through.'),
    ),
    'Auto',
  ),
});
/** Validated `aggregate` options. */
export type AggregateConfig = v.InferOutput<typeof AggregateConfig>;
