/** Internal events of the `host_metrics` source (Vector's `HostMetricsScrapeDetailError`): each logs and counts together. */
import type { ComponentContext } from '../../../lib/component.js';

/** What a collector reports when a read fails; the scrape goes on without those metrics. */
export interface HostMetricsEvents {
  /** A read or parse failed (`component_errors_total{error_type="reader_failed",stage="receiving"}`); logged rate-limited. */
  scrapeFailed(message: string, err: unknown, fields?: Record<string, string>): void;
}

/** Binds the counter of one source. */
export function hostMetricsEvents(ctx: ComponentContext): HostMetricsEvents {
  const errors = ctx.telemetry.counter('component_errors_total', { error_type: 'reader_failed', stage: 'receiving' });
  return {
    scrapeFailed(message, err, fields) {
      errors.add(1);
      // the logger rate-limits per message, so one broken file every scrape logs once per window
      ctx.log.error(message, { ...fields, error: err instanceof Error ? err.message : String(err), error_type: 'reader_failed', stage: 'receiving' });
    },
  };
}
