/** Internal events of the `eventdb_metrics` source: each logs and counts together. */
import type { ComponentContext } from '../../../lib/component.js';

/** Counters bound once per source; received bytes are counted by the source skeleton. */
export function eventdbTelemetry(ctx: ComponentContext) {
  const t = ctx.telemetry;
  return {
    requestErrors: t.counter('component_errors_total', { error_type: 'request_failed', stage: 'receiving' }),
    requestErrorsLegacy: t.counter('http_request_errors_total'),
    parseErrors: t.counter('component_errors_total', { error_type: 'parser_failed', stage: 'processing' }),
    parseErrorsLegacy: t.counter('parse_errors_total'),
    lag: t.histogram('source_lag_time_seconds'),
  };
}
/** The bound counters of one source. */
export type EventdbTelemetry = ReturnType<typeof eventdbTelemetry>;

/** The request failed before a body arrived; this scrape is skipped. */
export function requestFailed(ctx: ComponentContext, t: EventdbTelemetry, endpoint: string, err: unknown): void {
  t.requestErrors.add(1);
  t.requestErrorsLegacy.add(1);
  ctx.log.warn('Stats request failed; skipping this scrape.', { endpoint, error: (err as Error)?.message ?? String(err) });
}

/** The body does not fit the statistics document; this scrape is skipped. */
export function parseFailed(ctx: ComponentContext, t: EventdbTelemetry, endpoint: string, reason: string, status: number): void {
  t.parseErrors.add(1);
  t.parseErrorsLegacy.add(1);
  ctx.log.warn('Stats response could not be parsed; skipping this scrape.', { endpoint, status, error: reason });
}

/**
 * Seconds from the scrape's arrival to its metrics being ready. Metric events carry no log
 * timestamp field for the skeleton to measure, so the source records the lag itself.
 */
export function scrapeLag(ctx: ComponentContext, t: EventdbTelemetry, scrapedAtMs: number): void {
  t.lag.record(Math.max(0, ctx.scheduler.now() - scrapedAtMs) / 1000);
}
