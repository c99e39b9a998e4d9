/** Internal events of the `cloudw_monitor_metrics` sink: each logs and counts together. */
import type { ComponentContext } from '../../../lib/component.js';
import { type Event, settleAll } from '../../../lib/event.js';
import type { Counter } from '../../../lib/telemetry/registry.js';

/** The sink's own counters and log lines, bound once when it is built. */
export class MetricsSinkEvents {
  private readonly discarded: Counter;
  private readonly truncatedCount: Counter;
  private warnedTruncation = false;
  constructor(private readonly ctx: Pick<ComponentContext, 'telemetry' | 'log'>) {
    this.discarded = ctx.telemetry.counter('component_discarded_events_total', { intentional: 'true' });
    this.truncatedCount = ctx.telemetry.counter('dimensions_truncated_total');
  }

  /**
   * Metrics the service cannot take (aggregated histograms and summaries, timestamps outside its
   * window): dropped as Vector does, settled as done so that a source does not send them again.
   */
  dropped(events: readonly Event[], reason: string): void {
    if (events.length === 0) return;
    this.discarded.add(events.length);
    settleAll(events, 'delivered');
    this.ctx.log.warn(`Metrics dropped: ${reason}.`, { dropped: events.length });
  }

  /** A metric had more than 30 dimensions: the first 30 by key are kept. Warned once, counted always. */
  truncated(name: string, dropped: string[]): void {
    this.truncatedCount.add();
    if (this.warnedTruncation) return;
    this.warnedTruncation = true;
    this.ctx.log.warn('A metric has more than 30 tags; the first 30 by key are sent as dimensions, the rest left out (further cases are only counted in dimensions_truncated_total).', { metric: name, left_out: dropped });
  }
}
