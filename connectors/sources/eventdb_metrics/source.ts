/**
 * The `eventdb_metrics` source on the source skeleton: scrape a statistics endpoint at start,
 * then `scrape_interval_secs` after each scrape started (at once when a scrape took longer), only
 * while the output gate is open.
 */
import { type Observable, map } from 'rxjs';
import type { SourceContext } from '../../../lib/component.js';
import type { EventBatch } from '../../../lib/event.js';
import type { HttpClient } from '../../../lib/net/http-client.js';
import { resolveProxy } from '../../../lib/net/proxy.js';
import { Timestamp } from '../../../lib/value.js';
import { type SourceOutput, runScraper, scrapeHttp } from '../../shared/source/index.js';
import type { EventdbMetricsConfig } from './config.js';
import { type EventdbEvents, eventdbEvents } from './events.js';
import { statsToMetrics } from './stats.js';

// a statistics document with many queues runs past the client's default body cap
const MAX_STATS_CHARS = 16 * 1024 * 1024;

/** Builds the source; request and parse failures are counted and skip one scrape, never end the source. */
export function buildEventdbMetricsSource(config: EventdbMetricsConfig, ctx: SourceContext): Observable<EventBatch> {
  const periodMs = config.scrape_interval_secs * 1000;
  const events = eventdbEvents(ctx);
  // the received-bytes counter is tagged protocol=http, as Vector tags this source's
  return runScraper(ctx, periodMs, { proxy: resolveProxy(config.proxy, ctx.globals.proxy) }, (client, out) => scrapeOnce(config, ctx, out, events, client, periodMs));
}

/** One scrape: its metrics, or undefined when it failed (counted and logged) or was torn down. */
function scrapeOnce(
  config: EventdbMetricsConfig,
  ctx: SourceContext,
  out: SourceOutput,
  events: EventdbEvents,
  client: HttpClient,
  periodMs: number,
): Observable<EventBatch | undefined> {
  // a hung endpoint must not hold back every later scrape: give up after one interval
  const request = { url: config.endpoint, method: 'GET', headers: { 'content-type': 'application/json' }, maxBodyChars: MAX_STATS_CHARS };
  return scrapeHttp(client, request, periodMs, ctx.scheduler).pipe(
    map(({ response: res, error }) => {
      if (res === undefined) {
        events.requestFailed(config.endpoint, error);
        return undefined;
      }
      out.received(Buffer.byteLength(res.body));
      // the status is not checked: the body decides, as in Vector
      const scrapedAt = ctx.scheduler.now();
      const metrics = statsToMetrics(res.body, config.default_namespace, new Timestamp(Math.floor(scrapedAt)), ctx.id);
      if (typeof metrics === 'string') {
        events.parseFailed(config.endpoint, metrics, res.status);
        return undefined;
      }
      events.scrapeLag(scrapedAt);
      return metrics;
    }),
  );
}
