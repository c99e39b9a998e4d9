/**
 * The `prometheus_scrape` source on the source skeleton: every endpoint is requested at start and
 * then every `scrape_interval_secs` (at once after a slower round), each request bounded by
 * `scrape_timeout_secs`, only while the output gate is open. A failed request or an unreadable
 * body skips that endpoint for that round (counted, logged); the others' metrics are emitted.
 */
import { type Observable, forkJoin, map } from 'rxjs';
import type { SourceContext } from '../../../lib/component.js';
import type { EventBatch, MetricEvent } from '../../../lib/event.js';
import { type HttpClient, authorizationHeader } from '../../../lib/net/http-client.js';
import { resolveProxy } from '../../../lib/net/proxy.js';
import { Timestamp } from '../../../lib/value.js';
import { ParseError, parseText } from '../../shared/prometheus/text-parse.js';
import { familiesToMetrics } from '../../shared/prometheus/to-metrics.js';
import { type SourceOutput, runScraper, scrapeHttp } from '../../shared/source/index.js';
import { type PrometheusScrapeConfig, instanceOf, scrapeUrls } from './config.js';
import { type ScrapeEvents, scrapeEvents } from './events.js';

// a large exporter (kube-state-metrics, a federation endpoint) runs far past the client's default body cap
const MAX_BODY_CHARS = 256 * 1024 * 1024;

/** A tag the source sets on every metric of one endpoint. */
interface AddedTag {
  readonly name: string;
  readonly value: string;
}

export function buildPrometheusScrapeSource(config: PrometheusScrapeConfig, ctx: SourceContext): Observable<EventBatch> {
  const urls = scrapeUrls(config);
  const headers: Record<string, string> = { accept: 'text/plain' };
  if (config.auth) headers.authorization = authorizationHeader(config.auth);
  const targets = urls.map((url) => ({
    url,
    tags: [
      ...(config.instance_tag !== undefined ? [{ name: config.instance_tag, value: instanceOf(url) }] : []),
      ...(config.endpoint_tag !== undefined ? [{ name: config.endpoint_tag, value: url }] : []),
    ],
  }));
  if (config.scrape_timeout_secs >= config.scrape_interval_secs)
    ctx.log.warn('scrape_timeout_secs is not below scrape_interval_secs: a slow endpoint delays the next round.', { interval: config.scrape_interval_secs, timeout: config.scrape_timeout_secs });
  const events = scrapeEvents(ctx);
  const clientOptions = { tls: config.tls, proxy: resolveProxy(undefined, ctx.globals.proxy) };
  // one round: every endpoint at once, their metrics in one batch
  return runScraper(ctx, config.scrape_interval_secs * 1000, clientOptions, (client, out) =>
    forkJoin(targets.map((t) => scrapeOne(t.url, t.tags, config, ctx, out, events, client, headers))).pipe(
      map((parts) => {
        const batch: EventBatch = [];
        for (const p of parts) if (p !== undefined) for (const m of p) batch.push(m);
        return batch.length > 0 ? batch : undefined;
      }),
    ),
  );
}

/** One endpoint's metrics, or undefined when its scrape failed. */
function scrapeOne(
  url: string,
  tags: readonly AddedTag[],
  config: PrometheusScrapeConfig,
  ctx: SourceContext,
  out: SourceOutput,
  events: ScrapeEvents,
  client: HttpClient,
  headers: Record<string, string>,
): Observable<MetricEvent[] | undefined> {
  return scrapeHttp(client, { url, method: 'GET', headers, maxBodyChars: MAX_BODY_CHARS }, config.scrape_timeout_secs * 1000, ctx.scheduler).pipe(
    map(({ response, error }) => {
      if (response === undefined) {
        events.requestFailed(url, error.message);
        return undefined;
      }
      if (response.status < 200 || response.status > 299) {
        events.requestFailed(url, `HTTP ${response.status}`);
        return undefined;
      }
      out.received(Buffer.byteLength(response.body));
      let metrics: MetricEvent[];
      try {
        metrics = familiesToMetrics(parseText(response.body), new Timestamp(Math.floor(ctx.scheduler.now())), { sourceId: ctx.id, sourceType: 'prometheus_scrape' });
      } catch (err) {
        if (!(err instanceof ParseError)) throw err;
        events.parseFailed(url, err.message);
        return undefined;
      }
      if (tags.length > 0) for (const m of metrics) addTags(m, tags, config.honor_labels);
      return metrics;
    }),
  );
}

/** Sets the source's tags; a scraped tag of the same name is kept (honor_labels) or renamed to `exported_<name>`. */
function addTags(m: MetricEvent, tags: readonly AddedTag[], honorLabels: boolean): void {
  const own = (m.tags ??= {});
  for (const t of tags) {
    const existing = own[t.name];
    if (existing !== undefined) {
      if (honorLabels) continue;
      own[`exported_${t.name}`] = existing;
    }
    own[t.name] = t.value;
  }
}
