/** `tokenizer` transform: splits a field into tokens assigned to named fields. */
import * as v from 'valibot';
import { map, pipe } from 'rxjs';
import { type ComponentContext, defineTransform } from '../../../lib/component.js';
import { type EventBatch, batchSize } from '../../../lib/event.js';
import { throwsNot } from '../../../lib/config/options/checks.js';
import { inputsSchema } from '../../../lib/config/options/envelope.js';
import { fieldPathSchema } from '../../../lib/config/options/field-path.js';
import { resolveTimezone } from '../../../lib/time/strftime.js';
import { type TokenizerEvents, compileConversion, compileTokenizer, tokenize } from '../../../operators/transforms/tokenizer/index.js';


/** Options of the tokenizer, plus Vector's `timezone`. */
export const TokenizerConfig = v.strictObject({
  type: v.literal('tokenizer'),
  inputs: inputsSchema,
  field: v.optional(fieldPathSchema('Field whose text is split into tokens.'), 'message'),
  field_names: v.array(fieldPathSchema('Field that gets the token at this position.')),
  drop_field: v.optional(v.boolean(), true),
  types: v.optional(v.record(v.string(), v.pipe(v.string(), throwsNot((t) => compileConversion(t, undefined))))),
  /** Zone of naive timestamps; default the global `timezone`. */
  timezone: v.optional(v.pipe(v.string(), throwsNot(resolveTimezone))),
});
export type TokenizerConfig = v.InferOutput<typeof TokenizerConfig>;

/** Vector's internal events of the tokenizer: log and count together. */
function tokenizerEvents(ctx: ComponentContext): TokenizerEvents {
  const missing = ctx.telemetry.counter('component_errors_total', { error_type: 'condition_failed', error_code: 'field_not_found', stage: 'processing' });
  const missingLegacy = ctx.telemetry.counter('processing_errors_total', { error_type: 'missing_field' });
  const failed = ctx.telemetry.counter('component_errors_total', { error_type: 'conversion_failed', error_code: 'type_conversion', stage: 'processing' });
  const failedLegacy = ctx.telemetry.counter('processing_errors_total', { error_type: 'type_conversion_failed' });
  return {
    fieldMissing(field) {
      missing.add();
      missingLegacy.add();
      ctx.log.error('Field does not exist.', { field, error_code: 'field_not_found' });
    },
    conversionFailed(name, error) {
      failed.add();
      failedLegacy.add();
      ctx.log.error('Could not convert types.', { name, error: error.message, error_code: 'type_conversion' });
    },
  };
}

/** Builds the tokenizer; the global `timezone` applies unless the component sets its own. */
export function buildTokenizer(config: TokenizerConfig, ctx: ComponentContext) {
  const options = {
    field: config.field,
    fieldNames: config.field_names,
    dropField: config.drop_field,
    types: config.types,
    timezone: config.timezone ?? ctx.globals.timezone,
    events: tokenizerEvents(ctx),
  };
  for (const name of compileTokenizer(options).unusedTypes) ctx.log.warn('Field in types is not in field_names.', { field: name });
  const processed = ctx.telemetry.counter('processed_events_total');
  const processedBytes = ctx.telemetry.counter('processed_bytes_total');
  return pipe(
    map((batch: EventBatch) => {
      processed.add(batch.length);
      processedBytes.add(batchSize(batch));
      return batch;
    }),
    tokenize(options),
  );
}

/** The `tokenizer` component definition for the catalog. */
export const tokenizerTransform = defineTransform({
  type: 'tokenizer',
  summary: 'Split a field into white-space separated tokens assigned to named fields.',
  schema: TokenizerConfig,
  input: 'log',
  // each event is split on its own: any slice of the stream can go to a pipeline worker
  runsInWorker: () => true,
  build: buildTokenizer,
});
