/** Internal events of the `eventdb_metrics` source: each logs and counts together. */
import type { ComponentContext } from '../../../lib/component.js';

/** The internal events of one source, counters bound once; received bytes are counted by the source skeleton. */
export interface EventdbEvents {
  /** The request failed before a body arrived; this scrape is skipped. */
  requestFailed(endpoint: string, err: unknown): void;
  /** The body does not fit the statistics document; this scrape is skipped. */
  parseFailed(endpoint: string, reason: string, status: number): void;
  /**
   * Seconds from the scrape's arrival to its metrics being ready. Metric events carry no log
   * timestamp field for the skeleton to measure, so the source records the lag itself.
   */
  scrapeLag(scrapedAtMs: number): void;
}

/** Binds the counters of one source. */
export function eventdbEvents(ctx: ComponentContext): EventdbEvents {
  const t = ctx.telemetry;
  const requestErrors = t.counter('component_errors_total', { error_type: 'request_failed', stage: 'receiving' });
  const requestErrorsLegacy = t.counter('http_request_errors_total');
  const parseErrors = t.counter('component_errors_total', { error_type: 'parser_failed', stage: 'processing' });
  const parseErrorsLegacy = t.counter('parse_errors_total');
  const lag = t.histogram('source_lag_time_seconds');
  return {
    requestFailed(endpoint, err) {
      requestErrors.add(1);
      requestErrorsLegacy.add(1);
      ctx.log.warn('Stats request failed; skipping this scrape.', { endpoint, error: (err as Error)?.message ?? String(err) });
    },
    parseFailed(endpoint, reason, status) {
      parseErrors.add(1);
      parseErrorsLegacy.add(1);
      ctx.log.warn('Stats response could not be parsed; skipping this scrape.', { endpoint, status, error: reason });
    },
    scrapeLag(scrapedAtMs) {
      lag.record(Math.max(0, ctx.scheduler.now() - scrapedAtMs) / 1000);
    },
  };
}
