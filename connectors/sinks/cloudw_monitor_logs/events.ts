/** Internal events of the `cloudw_monitor_logs` sink: each logs and counts together. */
import type { ComponentContext } from '../../../lib/component.js';
import { type Event, settleAll } from '../../../lib/event.js';
import type { Counter } from '../../../lib/telemetry/registry.js';

/** The sink's own counters and log lines, bound once when it is built. */
export class LogsSinkEvents {
  private readonly discarded: Counter;
  private readonly refusedByService: Counter;
  constructor(private readonly ctx: Pick<ComponentContext, 'telemetry' | 'log'>) {
    this.discarded = ctx.telemetry.counter('component_discarded_events_total', { intentional: 'true' });
    this.refusedByService = ctx.telemetry.counter('component_errors_total', { error_type: 'log_events_refused', stage: 'sending' });
  }

  /**
   * Events older than 14 days or more than 2 h ahead, which the service would not store: dropped
   * as Vector does, settled as done so that a source does not send them again and again.
   */
  outOfRange(events: readonly Event[], group: string, stream: string): void {
    this.discarded.add(events.length);
    settleAll(events, 'delivered');
    this.ctx.log.warn('Events older than 14 days or more than 2 hours ahead dropped; the service would not store them.', { dropped: events.length, group, stream });
  }

  /** The service took a call but refused some of its events (they aged out while the call was retried). */
  refused(info: { tooOldLogEventEndIndex?: number; tooNewLogEventStartIndex?: number; expiredLogEventEndIndex?: number }, group: string, stream: string): void {
    this.refusedByService.add();
    this.ctx.log.warn('The service refused some log events of a call.', { ...info, group, stream });
  }
}
