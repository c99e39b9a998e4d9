/** Internal events of the `cloudw_stream` sink: each logs and counts together. */
import type { ComponentContext } from '../../../lib/component.js';
import type { Counter } from '../../../lib/telemetry/registry.js';

/** The counters and log lines of one `cloudw_stream` sink, bound once when it is built. */
export class StreamSinkEvents {
  private readonly keyMissing: Counter;
  private readonly tooLarge: Counter;
  private readonly recordsRefused: Counter;
  private readonly recordsRetried: Counter;
  constructor(private readonly ctx: Pick<ComponentContext, 'telemetry' | 'log'>) {
    const t = ctx.telemetry;
    this.keyMissing = t.counter('component_errors_total', { error_type: 'partition_key_missing', stage: 'processing' });
    this.tooLarge = t.counter('component_errors_total', { error_type: 'event_too_large', stage: 'sending' });
    this.recordsRefused = t.counter('component_errors_total', { error_type: 'record_refused', stage: 'sending' });
    this.recordsRetried = t.counter('component_errors_total', { error_type: 'record_failed', stage: 'sending' });
  }

  /** The partition key field is missing or empty: a warning, and the event is dropped, as in Vector. */
  partitionKeyMissing(field: string, events: number): void {
    this.keyMissing.add(events);
    this.ctx.log.warn('Partition key field missing or empty; event dropped.', { partition_key_field: field, dropped: events });
  }

  /** A record over the service's 1 MiB limit (data and key) is never sent. */
  recordTooLarge(bytes: number, limit: number): void {
    this.tooLarge.add();
    this.ctx.log.error('Record larger than the service allows; dropped.', { bytes, limit });
  }

  /**
   * Records the service refused for good (e.g. a key-management error); their events are rejected
   * by the request skeleton, which logs the failure with the code, so this only counts.
   */
  refused(records: number): void {
    this.recordsRefused.add(records);
  }

  /** Records the service failed for now (throttling, internal failure); only they are sent again. */
  partial(code: string, failed: number, total: number): void {
    this.recordsRetried.add(failed);
    this.ctx.log.warn('Some records of a call failed; sending only those again.', { error_code: code, failed, total });
  }
}
