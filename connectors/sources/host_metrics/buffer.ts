/** The metrics of one scrape: every one absolute, with the scrape's timestamp and the `collector` and `host` tags. */
import { EventMetadata, MetricEvent } from '../../../lib/event.js';
import type { Timestamp } from '../../../lib/value.js';

/** Collects one scrape's metrics; {@link collector} names the collector whose metrics follow. */
export class MetricsBuffer {
  readonly metrics: MetricEvent[] = [];
  /** The `collector` tag of the next metrics. */
  collector = '';

  constructor(
    private readonly sourceId: string,
    private readonly namespace: string | undefined,
    private readonly host: string | undefined,
    private readonly timestamp: Timestamp,
  ) {}

  counter(name: string, value: number, tags?: Record<string, string>): void {
    this.push(name, { type: 'counter', value }, tags);
  }

  gauge(name: string, value: number, tags?: Record<string, string>): void {
    this.push(name, { type: 'gauge', value }, tags);
  }

  private push(name: string, value: MetricEvent['value'], tags: Record<string, string> | undefined): void {
    const t: Record<string, string> = tags ? { ...tags } : {};
    t.collector = this.collector;
    if (this.host !== undefined) t.host = this.host;
    this.metrics.push(new MetricEvent(name, 'absolute', value, new EventMetadata(this.sourceId, 'host_metrics'), this.namespace, t, this.timestamp));
  }
}
