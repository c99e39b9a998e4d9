/** Internal events of the `prometheus_scrape` source: each logs and counts together. */
import type { ComponentContext } from '../../../lib/component.js';

export interface ScrapeEvents {
  /** No answer, or a status other than 2xx; this endpoint's scrape is skipped. */
  requestFailed(endpoint: string, reason: string): void;
  /** The body is not the text format; this endpoint's scrape is skipped. */
  parseFailed(endpoint: string, reason: string): void;
}

/** Binds the counters of one source (received bytes are counted by the source skeleton). */
export function scrapeEvents(ctx: ComponentContext): ScrapeEvents {
  const t = ctx.telemetry;
  const requestErrors = t.counter('component_errors_total', { error_type: 'request_failed', stage: 'receiving' });
  const requestErrorsLegacy = t.counter('http_client_errors_total');
  const parseErrors = t.counter('component_errors_total', { error_type: 'parser_failed', stage: 'processing' });
  const parseErrorsLegacy = t.counter('parse_errors_total');
  return {
    requestFailed(endpoint, reason) {
      requestErrors.add(1);
      requestErrorsLegacy.add(1);
      // a bare host has no path: say what Vector says about it
      const hint = new URL(endpoint).pathname === '/' ? ' No path is set on the endpoint; did you mean /metrics?' : '';
      ctx.log.warn(`Scrape failed; skipping it.${hint}`, { endpoint, error: reason });
    },
    parseFailed(endpoint, reason) {
      parseErrors.add(1);
      parseErrorsLegacy.add(1);
      const hint = new URL(endpoint).pathname === '/' ? ' No path is set on the endpoint; did you mean /metrics?' : '';
      ctx.log.warn(`Scraped text could not be parsed; skipping it.${hint}`, { endpoint, error: reason });
    },
  };
}
