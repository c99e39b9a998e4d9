/** `eventdb_metrics`: metrics scraped from an EventStoreDB-compatible statistics endpoint. */
import { defineSource } from '../../../lib/component.js';
import { EventdbMetricsConfig } from './config.js';
import { buildEventdbMetricsSource } from './source.js';

export { EventdbMetricsConfig } from './config.js';
export { buildEventdbMetricsSource } from './source.js';

/** The `eventdb_metrics` source definition. */
export const eventdbMetricsSource = defineSource({
  type: 'eventdb_metrics',
  aliases: ['eventstoredb_metrics'],
  summary: 'Scrape process, memory and disk metrics from an EventStoreDB-compatible stats endpoint.',
  schema: EventdbMetricsConfig,
  outputs: () => [{ type: 'metric' }],
  build: buildEventdbMetricsSource,
});
