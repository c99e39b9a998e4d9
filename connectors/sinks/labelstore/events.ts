/**
 * The `labelstore` sink's own internal events: each logs and counts together. Events
 * dropped as out of order end in a `rejected` Delivery, which the topology counts as discarded.
 */
import type { ComponentContext } from '../../../lib/component.js';
import type { Counter } from '../../../lib/telemetry/registry.js';
import type { EncoderEvents } from './encoder.js';
import type { OrderingEvents } from './ordering.js';

/** The counters of one sink, bound once when it is built. */
export class LabelstoreEvents implements EncoderEvents, OrderingEvents {
  private readonly outOfOrder: Counter;
  private readonly rewrittenTotal: Counter;
  private readonly unlabeledTotal: Counter;
  private unlabeledLogged = false;
  constructor(private readonly ctx: Pick<ComponentContext, 'telemetry' | 'log'>) {
    const t = ctx.telemetry;
    this.outOfOrder = t.counter('component_errors_total', { error_type: 'out_of_order', stage: 'processing' });
    this.rewrittenTotal = t.counter('rewritten_timestamp_events_total');
    this.unlabeledTotal = t.counter('component_errors_total', { error_type: 'unlabeled_event', stage: 'processing' });
  }

  /** `out_of_order_action = "drop"`: `events` entries older than their stream's newest were not sent. */
  dropped(events: number): void {
    this.outOfOrder.add(events);
    this.ctx.log.warn('Dropping out-of-order events.', { dropped: events });
  }

  /** `out_of_order_action = "rewrite_timestamp"`: `events` entries were moved to their stream's newest time. */
  rewritten(events: number): void {
    this.rewrittenTotal.add(events);
    this.ctx.log.debug('Rewrote the timestamps of out-of-order events.', { rewritten: events });
  }

  /** No label rendered for an event: it goes out with the fallback label (logged once, counted always). */
  unlabeled(): void {
    this.unlabeledTotal.add();
    if (this.unlabeledLogged) return;
    this.unlabeledLogged = true;
    this.ctx.log.warn('Event has no labels; sending it with agent="weir". Further cases are only counted.', { counter: 'component_errors_total{error_type="unlabeled_event"}' });
  }
}
