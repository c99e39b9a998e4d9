/** The real Prometheus scrapes the exporter; values are read back through its query API. */
import { expect } from 'chai';
import { Subject } from 'rxjs';
import * as v from 'valibot';
import { type EventBatch, EventMetadata, MetricEvent, type MetricKind, type MetricValue } from '../../../../lib/event.js';
import { PrometheusExporterConfig } from '../../../../connectors/sinks/prometheus_exporter/config.js';
import { type ExporterHandle, buildPrometheusExporterSink } from '../../../../connectors/sinks/prometheus_exporter/sink.js';
import { promtoolCheckMetrics, sharedPrometheus } from '../../../peers/prometheus.js';
import { testSinkContext } from '../../../helpers/sink-context.js';

const metric = (name: string, kind: MetricKind, value: MetricValue, tags?: Record<string, string>) =>
  new MetricEvent(name, kind, value, new EventMetadata('in', 'test'), 'pexp', tags);

describe('connectors/sinks/prometheus_exporter: scraped by the real Prometheus', function () {
  this.timeout(120_000);

  it('Prometheus reads counters, gauges, histograms, summaries and escaped labels as weir holds them; promtool accepts the page', async () => {
    const prom = await sharedPrometheus();
    const config = v.parse(PrometheusExporterConfig, {
      type: 'prometheus_exporter',
      inputs: ['in'],
      address: '127.0.0.1:0',
      auth: { strategy: 'basic', user: 'scraper', password: 's3cret' },
    });
    let handle: ExporterHandle | undefined;
    const input = new Subject<EventBatch>();
    const sub = input.pipe(buildPrometheusExporterSink(config, testSinkContext('prometheus_exporter'), (h) => (handle = h))).subscribe();
    try {
      const port = await handle!.listening;
      input.next([
        metric('requests_total', 'incremental', { type: 'counter', value: 40 }, { path: '/a"b\\c', code: '200' }),
        metric('requests_total', 'incremental', { type: 'counter', value: 2 }, { path: '/a"b\\c', code: '200' }),
        metric('queue_depth', 'absolute', { type: 'gauge', value: 7.5 }),
        metric('latency_seconds', 'incremental', { type: 'distribution', samples: [{ value: 0.02, rate: 3 }, { value: 0.7, rate: 1 }, { value: 20, rate: 1 }], statistic: 'histogram' }),
        metric('rpc_seconds', 'absolute', { type: 'aggregated_summary', quantiles: [{ quantile: 0.5, value: 0.1 }, { quantile: 0.9, value: 0.4 }], count: 12, sum: 2.5 }),
        metric('visitors', 'absolute', { type: 'set', values: ['x', 'y', 'z'] }),
      ]);
      await prom.configure(
        [
          'global:',
          '  scrape_interval: 1s',
          'scrape_configs:',
          '  - job_name: weir_exporter',
          '    basic_auth: { username: scraper, password: s3cret }',
          `    static_configs: [{ targets: ["127.0.0.1:${port}"] }]`,
          '',
        ].join('\n'),
      );
      const up = await prom.waitFor('up{job="weir_exporter"}', (r) => r[0]?.value === 1);
      expect(up).to.have.length(1);
      const counter = await prom.waitFor('pexp_requests_total{job="weir_exporter"}', (r) => r.length === 1);
      expect(counter[0]!.metric).to.include({ path: '/a"b\\c', code: '200' });
      expect(counter[0]!.value).to.equal(42);
      expect((await prom.query('pexp_queue_depth{job="weir_exporter"}'))[0]!.value).to.equal(7.5);
      expect((await prom.query('pexp_visitors{job="weir_exporter"}'))[0]!.value).to.equal(3);
      const buckets = await prom.query('pexp_latency_seconds_bucket{job="weir_exporter"}');
      const byLe = Object.fromEntries(buckets.map((b) => [b.metric.le, b.value]));
      expect(byLe).to.deep.include({ '0.025': 3, '0.5': 3, '1': 4, '10': 4, '+Inf': 5 });
      expect((await prom.query('pexp_latency_seconds_count{job="weir_exporter"}'))[0]!.value).to.equal(5);
      expect((await prom.query('pexp_latency_seconds_sum{job="weir_exporter"}'))[0]!.value).to.be.closeTo(20.76, 1e-9);
      const q = await prom.query('pexp_rpc_seconds{job="weir_exporter"}');
      expect(Object.fromEntries(q.map((s) => [s.metric.quantile, s.value]))).to.deep.equal({ '0.5': 0.1, '0.9': 0.4 });
      // the metric types arrive as declared
      const meta = (await (await fetch(`${prom.url}/api/v1/targets/metadata?match_target={job="weir_exporter"}`)).json()) as { data: { metric: string; type: string }[] };
      const types = Object.fromEntries(meta.data.map((m) => [m.metric, m.type]));
      expect(types).to.include({ pexp_requests_total: 'counter', pexp_queue_depth: 'gauge', pexp_latency_seconds: 'histogram', pexp_rpc_seconds: 'summary', pexp_visitors: 'gauge' });

      // a wrong password: the target goes down
      await prom.configure(
        ['global:', '  scrape_interval: 1s', 'scrape_configs:', '  - job_name: weir_exporter_badauth', '    basic_auth: { username: scraper, password: nope }', `    static_configs: [{ targets: ["127.0.0.1:${port}"] }]`, ''].join('\n'),
      );
      await prom.waitFor('up{job="weir_exporter_badauth"}', (r) => r[0]?.value === 0);

      const page = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Basic ${Buffer.from('scraper:s3cret').toString('base64')}` } }).then((r) => r.text());
      const lint = promtoolCheckMetrics(page);
      expect(lint.code, lint.output).to.not.equal(1);
      expect(lint.output).to.not.match(/parsing error/);
    } finally {
      sub.unsubscribe();
    }
  });
});
