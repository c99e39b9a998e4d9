/** Internal events of the `aggregate` transform (Vector's names): each counts, and logs where Vector does. */
import type { ComponentContext } from '../../../lib/component.js';

/** Counters of one transform, bound once. */
export interface AggregateEvents {
  /** A metric was taken into the aggregation (`aggregate_events_recorded_total`). */
  recorded(): void;
  /** One flush ran, with or without metrics (`aggregate_flushes_total`). */
  flushed(): void;
  /** Two values of one series could not be combined (`aggregate_failed_updates`); the newer one is kept. */
  updateFailed(): void;
  /** Mean or Stdev dropped an absolute metric that is not a gauge. */
  discarded(): void;
}

/** Binds the counters of one transform. */
export function aggregateEvents(ctx: ComponentContext): AggregateEvents {
  const t = ctx.telemetry;
  const recorded = t.counter('aggregate_events_recorded_total');
  const flushes = t.counter('aggregate_flushes_total');
  const failed = t.counter('aggregate_failed_updates');
  const discarded = t.counter('component_discarded_events_total', { intentional: 'true' });
  return {
    recorded: () => recorded.add(1),
    flushed: () => flushes.add(1),
    updateFailed() {
      failed.add(1);
      ctx.log.debug('Metric values of one series could not be combined; keeping the newer one.');
    },
    discarded() {
      discarded.add(1);
      ctx.log.debug('Only gauges have a mean or a deviation; dropped an absolute metric of another type.');
    },
  };
}
