/**
 * Each metric made absolute once, as it enters the sink (Vector's remote-write normalisation): an
 * absolute metric passes as it is; an incremental one is added to its series' running total, which
 * is kept (and expires after `expire_metrics_secs` without updates) and sent as absolute. The
 * tenant template is rendered here too, so a failed render rejects that one metric.
 */
import { type Event, type MetricEvent, eventSize } from '../../../lib/event.js';
import { type Template, TemplateError, compileTemplate } from '../../../lib/template.js';
import type { Encoded } from '../../shared/request-sink.js';
import type { RenderableMetric } from '../../shared/prometheus/exposition.js';
import { SeriesStore } from '../../shared/prometheus/series-store.js';
import type { PrometheusRemoteWriteSinkConfig } from './config.js';

export interface EncodedMetric extends Encoded {
  readonly metric: RenderableMetric;
  readonly tenant: string | TemplateError | undefined;
}

export interface RemoteWriteEncoder {
  encode(e: Event): EncodedMetric;
  /** Series with a running total now. */
  readonly totals: number;
}

export function createRemoteWriteEncoder(config: PrometheusRemoteWriteSinkConfig, now: () => number): RemoteWriteEncoder {
  const expiryMs = (config.expire_metrics_secs ?? 0) * 1000;
  const totals = new SeriesStore({ distributions: 'keep', buckets: config.buckets, suppressTimestamp: false, flushPeriodMs: expiryMs });
  const tenant: Template | undefined = config.tenant_id === undefined ? undefined : compileTemplate(config.tenant_id);
  let lastSweep = now();
  return {
    get totals() {
      return totals.size;
    },
    encode(e) {
      if (e.type !== 'metric') throw new Error('prometheus_remote_write sends metric events only');
      const m = e as MetricEvent;
      const t = now();
      // a sweep at most once per expiry period, as Vector cleans its cache
      if (expiryMs > 0 && t - lastSweep >= expiryMs) {
        totals.sweep(t);
        lastSweep = t;
      }
      let metric: RenderableMetric = m;
      if (m.kind === 'incremental') {
        const total = totals.update(m, t);
        // a snapshot: the running total changes with the next update, this request must not
        metric = { kind: 'absolute', name: m.name, namespace: m.namespace, tags: m.tags, value: structuredClone(total.value), timestamp: m.timestamp };
      }
      return { event: e, size: eventSize(e), key: undefined, metric, tenant: tenant === undefined ? undefined : renderTenant(tenant, e) };
    },
  };
}

function renderTenant(t: Template, e: Event): string | TemplateError {
  const s = t.render(e);
  return s !== undefined ? s : new TemplateError(t.text, `tenant_id: missing ${t.missingFields(e).join(', ')}`);
}
