/** Options of the `prometheus_scrape` source (names and defaults from Vector's). */
import * as v from 'valibot';
import { httpUrlSchema } from '../../../lib/config/options/endpoint.js';
import { tlsSchema } from '../../../lib/config/options/tls.js';
import { httpAuthSchema } from '../../shared/http/auth.js';

/** The `prometheus_scrape` source options. */
export const PrometheusScrapeConfig = v.pipe(
  v.strictObject({
    type: v.literal('prometheus_scrape'),
    endpoints: v.optional(v.pipe(v.array(httpUrlSchema('An endpoint to scrape.')), v.description('Endpoints to scrape (with their path, e.g. `/metrics`).'))),
    /** Vector's older name of `endpoints`. */
    hosts: v.optional(v.pipe(v.array(httpUrlSchema('An endpoint to scrape.')), v.description('Vector\'s older name of `endpoints`.'))),
    scrape_interval_secs: v.optional(v.pipe(v.number(), v.gtValue(0, 'must be greater than 0'), v.description('Seconds between scrapes; the first runs at start.')), 15),
    scrape_timeout_secs: v.optional(v.pipe(v.number(), v.gtValue(0, 'must be greater than 0'), v.description('Seconds a scrape may take before it is abandoned and counted as failed.')), 5),
    instance_tag: v.optional(v.pipe(v.string(), v.description('Tag that gets the scraped endpoint\'s `host:port`; unset: no tag.'))),
    endpoint_tag: v.optional(v.pipe(v.string(), v.description('Tag that gets the scraped endpoint URL; unset: no tag.'))),
    honor_labels: v.optional(
      v.pipe(
        v.boolean(),
        v.description('When a scraped metric already has the instance or endpoint tag: true keeps it, false renames it to `exported_<tag>` and sets the source\'s value.'),
      ),
      false,
    ),
    query: v.optional(
      v.pipe(
        v.record(v.string(), v.union([v.string(), v.array(v.string())])),
        v.description('Query parameters added to every endpoint URL (a list repeats the parameter), e.g. `match[]` for `/federate`.'),
      ),
      {},
    ),
    auth: v.optional(v.pipe(httpAuthSchema, v.description('Credentials sent with each scrape: `basic` (user, password) or `bearer` (token).'))),
    tls: tlsSchema,
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    if (dataset.value.endpoints === undefined && dataset.value.hosts === undefined) addIssue({ message: 'endpoints is required' });
  }),
);
/** Validated `prometheus_scrape` options. */
export type PrometheusScrapeConfig = v.InferOutput<typeof PrometheusScrapeConfig>;

/** Each endpoint with the `query` parameters appended, as it is requested. */
export function scrapeUrls(config: PrometheusScrapeConfig): string[] {
  return [...(config.endpoints ?? []), ...(config.hosts ?? [])].map((endpoint) => {
    const url = new URL(endpoint);
    for (const [name, value] of Object.entries(config.query)) for (const one of Array.isArray(value) ? value : [value]) url.searchParams.append(name, one);
    return url.toString();
  });
}

/** `host:port` of an endpoint, the port defaulting by scheme (Vector's instance value). */
export function instanceOf(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port !== '' ? u.port : u.protocol === 'https:' ? '443' : '80'}`;
}
