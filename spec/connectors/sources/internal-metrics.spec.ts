import { expect } from 'chai';
import { map, take, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { sources } from '../../../connectors/compose.js';
import type { EventBatch, MetricEvent } from '../../../lib/event.js';
import { snapshotMetrics } from '../../../connectors/sources/internal_metrics/index.js';
import { Timestamp } from '../../../lib/value.js';
import { ComponentTelemetry, MetricsRegistry } from '../../../lib/telemetry/registry.js';

describe('internal_metrics source', () => {
  it('reports histograms with per-bucket counts, as Vector\'s model holds them', () => {
    const registry = new MetricsRegistry({});
    const h = new ComponentTelemetry(registry, 'out', 'sink', 'console').histogram('demo_seconds');
    for (const v of [0.001, 0.002, 3]) h.record(v);
    const batch = snapshotMetrics(registry, 'in', { type: 'internal_metrics', scrape_interval_secs: 1, namespace: 'weir', tags: {} }, new Timestamp(0));
    const value = (batch.find((m) => (m as MetricEvent).name === 'demo_seconds') as MetricEvent).value as { buckets: { upper_limit: number; count: number }[]; count: number };
    expect(value.buckets.filter((b) => b.count > 0)).to.deep.equal([
      { upper_limit: 1, count: 2 },
      { upper_limit: 4, count: 1 },
    ]);
    expect(value.count).to.equal(3);
  });

  it('emits every series at once and then each scrape interval, as absolute counters and gauges with component tags', () => {
    const registry = new MetricsRegistry({ host: 'h1', pid: '42' });
    const t = new ComponentTelemetry(registry, 'out', 'sink', 'console');
    const sent = t.counter('component_sent_events_total');
    t.gauge('buffer_events').set(7);
    const rx = new TestScheduler((a, e) => {
      expect(a).to.deep.equal(e);
    });
    rx.run(({ expectObservable, cold }) => {
      cold('1500ms a').subscribe(() => sent.add(5));
      const src = sources.internal_metrics!({ scrape_interval_secs: 1, tags: { host_key: 'host' } }, { scheduler: rx, registry }) as Observable<EventBatch>;
      const view = src.pipe(
        take(3),
        // the source's own series (its received bytes) are checked below
        map((b) =>
          (b as MetricEvent[]).filter((m) => m.tags!.component_id !== 'internal_metrics').map((m) => `${m.namespace}.${m.name}{${m.tags!.component_id},${m.tags!.component_kind},host=${m.tags!.host},pid=${m.tags!.pid}} ${m.kind} ${m.value.type}=${(m.value as { value: number }).value}`),
        ),
      );
      // Vector scrapes on start: the first batch comes at 0 ms, not after the first interval
      expectObservable(view).toBe('a 999ms a 999ms (b|)', {
        a: ['weir.component_sent_events_total{out,sink,host=h1,pid=undefined} absolute counter=0', 'weir.buffer_events{out,sink,host=h1,pid=undefined} absolute gauge=7'],
        b: ['weir.component_sent_events_total{out,sink,host=h1,pid=undefined} absolute counter=5', 'weir.buffer_events{out,sink,host=h1,pid=undefined} absolute gauge=7'],
      });
    });
    // each snapshot's size counts as received: three scrapes of at least two series each
    const received = registry.all().find((s) => s.name === 'component_received_bytes_total' && s.tags.component_id === 'internal_metrics');
    expect(received?.value).to.be.greaterThan(3 * 2 * 64);
  });
});
