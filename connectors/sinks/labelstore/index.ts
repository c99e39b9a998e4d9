/** The `labelstore` sink definition, for the catalog. */
import { defineSink } from '../../../lib/component.js';
import { LabelstoreConfig } from './config.js';
import { buildLabelstoreSink, labelstoreHealthcheck } from './sink.js';

export { LabelstoreConfig } from './config.js';
export { buildLabelstoreSink, labelstoreHealthcheck } from './sink.js';

/** Delivers log events to a label-indexed log store's push API. */
export const labelstoreSink = defineSink({
  type: 'labelstore',
  aliases: ['loki'],
  summary: 'Deliver log events to a label-indexed log store (push API: protobuf and snappy, or JSON).',
  schema: LabelstoreConfig,
  vectorOptions: ['structured_metadata', 'remove_structured_metadata_fields', 'encoding'],
  input: 'log',
  pullSize: (c) => Math.min(c.batch.max_events ?? 100_000, 10_000),
  build: (config, ctx) => buildLabelstoreSink(config, ctx),
  healthcheck: (config, ctx) => labelstoreHealthcheck(config, ctx),
});
