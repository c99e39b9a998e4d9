/** `prometheus_scrape`: metrics pulled from Prometheus exporters' text endpoints. */
import { defineSource } from '../../../lib/component.js';
import { PrometheusScrapeConfig } from './config.js';
import { buildPrometheusScrapeSource } from './source.js';

export { PrometheusScrapeConfig } from './config.js';
export { buildPrometheusScrapeSource } from './source.js';

/** The `prometheus_scrape` source definition. */
export const prometheusScrapeSource = defineSource({
  type: 'prometheus_scrape',
  aliases: ['prometheus'],
  summary: 'Scrape metrics from Prometheus exporters (the text exposition format).',
  schema: PrometheusScrapeConfig,
  outputs: () => [{ type: 'metric' }],
  build: buildPrometheusScrapeSource,
});
