/**
 * The `cloudw_monitor_metrics` sink against the strict CloudWatch metrics server: the datum of each
 * metric type, namespaces, dimensions, batching and the 1,000-datum limit, compression, and what is
 * dropped or rejected.
 */
import { expect } from 'chai';
import { of } from 'rxjs';
import { MAX_CALL_BYTES, buildMetricsRequest } from '../../../../connectors/sinks/cloudw_monitor_metrics/request.js';
import { createMetricsEncoder } from '../../../../connectors/sinks/cloudw_monitor_metrics/encoder.js';
import { logEvent } from '../../../../lib/event.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { type CloudwatchMetricsPeer, startCloudwatchMetrics } from '../../../peers/cloudwatch-metrics.js';
import { count, counter, fast, gauge, metric, metricsConfig, runSink } from './harness.js';

const HOUR = 3_600_000;

describe('connectors/sinks/cloudw_monitor_metrics: the sink against a strict CloudWatch metrics server', () => {
  let peer: CloudwatchMetricsPeer;
  let now: number;
  before(async () => {
    peer = await startCloudwatchMetrics();
  });
  after(() => peer.close());
  beforeEach(() => {
    peer.datums.length = 0;
    peer.calls.length = 0;
    peer.requests.length = 0;
    peer.fault = undefined;
    now = Date.now() - 60_000;
  });
  const config = (extra: Record<string, unknown> = {}) => fast(metricsConfig(peer.url, extra));
  const datum = (name: string) => peer.datums.filter((d) => d.name === name);

  it('counters as increments summed per series and timestamp, gauges as totals, sets as member counts, each point with its timestamp', async () => {
    const ds = await runSink(
      config(),
      of([
        counter('requests', 2, { tags: { env: 'prod' }, ms: now }),
        counter('requests', 3, { tags: { env: 'prod' }, ms: now }),
        counter('requests', 5, { tags: { env: 'dev' }, ms: now }),
        gauge('temp', 20.5, { kind: 'absolute', ms: now }),
        gauge('temp', 21.5, { kind: 'absolute', ms: now + 1 }),
        metric('users', { type: 'set', values: ['a', 'b', 'a', 'c'] }),
      ]),
    );
    expect(count(ds, 'delivered')).to.equal(6);
    expect(peer.calls).to.deep.equal([{ namespace: 'weir', datums: 5, gzip: false }]);
    expect(datum('requests').map((d) => [d.dimensions, d.value, d.timestamp])).to.deep.equal([
      [{ env: 'prod' }, 5, now],
      [{ env: 'dev' }, 5, now],
    ]);
    expect(datum('temp').map((d) => [d.value, d.timestamp])).to.deep.equal([
      [20.5, now],
      [21.5, now + 1],
    ]);
    expect(datum('users').map((d) => [d.value, d.timestamp])).to.deep.equal([[3, undefined]]);
  });

  it('absolute counters become deltas: the first value only sets the reference; incremental gauges become running totals', async () => {
    const cfg = config({ batch: { max_events: 1 } });
    const ds = await runSink(
      cfg,
      of([counter('c', 10, { kind: 'absolute' }), counter('c', 14, { kind: 'absolute' }), counter('c', 20, { kind: 'absolute' }), gauge('g', 1), gauge('g', 2)]),
    );
    expect(count(ds, 'delivered')).to.equal(5);
    expect(datum('c').map((d) => d.value)).to.deep.equal([4, 6]);
    expect(datum('g').map((d) => d.value)).to.deep.equal([1, 3]);
  });

  it('distributions as Values and Counts: equal values merged, sorted; more than 150 distinct values become several datums', async () => {
    const samples = [
      { value: 0.5, rate: 2 },
      { value: 0.1, rate: 1 },
      { value: 0.5, rate: 3 },
      { value: 9, rate: 0 },
    ];
    await runSink(config(), of([metric('latency', { type: 'distribution', samples, statistic: 'histogram' }, { tags: { path: '/' } })]));
    expect(datum('latency').map((d) => [d.values, d.counts, d.value])).to.deep.equal([[[0.1, 0.5], [1, 5], undefined]]);
    const many = Array.from({ length: 320 }, (_, i) => ({ value: i, rate: 1 }));
    await runSink(config(), of([metric('wide', { type: 'distribution', samples: many, statistic: 'summary' })]));
    expect(datum('wide').map((d) => d.values!.length)).to.deep.equal([150, 150, 20]);
    expect(datum('wide').flatMap((d) => d.values)).to.deep.equal(many.map((s) => s.value));
  });

  it('default_namespace for metrics without one; a metric namespace wins; one call per namespace; the name is not prefixed', async () => {
    await runSink(config({ default_namespace: 'fallback' }), of([counter('a', 1), counter('b', 1, { namespace: 'app' }), counter('c', 1)]));
    expect(peer.calls.map((c) => [c.namespace, c.datums]).sort()).to.deep.equal([
      ['app', 1],
      ['fallback', 2],
    ]);
    expect(peer.datums.map((d) => `${d.namespace}/${d.name}`).sort()).to.deep.equal(['app/b', 'fallback/a', 'fallback/c']);
  });

  it('dimensions: tags by key, bare, blank and invalid ones left out, the first 30 of more kept and the case counted', async () => {
    const ctx = testSinkContext('cloudw_monitor_metrics');
    const tags: Record<string, string | null> = { bare: null, empty: '', blank: '  ', ':colon': 'v', 'nön-ascii': 'v' };
    for (let i = 0; i < 35; i++) tags[`t${String(i).padStart(2, '0')}`] = `v${i}`;
    const ds = await runSink(config(), of([counter('wide', 1, { tags }), counter('multi', 1, { tags: { env: ['a', null, 'b'] } })]), ctx);
    expect(count(ds, 'delivered')).to.equal(2);
    expect(Object.keys(datum('wide')[0]!.dimensions)).to.deep.equal(Array.from({ length: 30 }, (_, i) => `t${String(i).padStart(2, '0')}`));
    expect(datum('multi')[0]!.dimensions).to.deep.equal({ env: 'b' });
    expect(ctx.metric('dimensions_truncated_total')).to.equal(1);
  });

  it('batch.max_events (default 20) sets datums per call; at most 1,000 per call and under 1 MiB whatever the batch', async () => {
    await runSink(config(), of(Array.from({ length: 45 }, (_, i) => counter(`m${i}`, 1))));
    expect(peer.calls.map((c) => c.datums)).to.deep.equal([20, 20, 5]);
    peer.calls.length = 0;
    await runSink(config({ batch: { max_events: 1000, timeout_secs: 0.2 } }), of(Array.from({ length: 1000 }, (_, i) => counter(`n${i}`, 1))));
    expect(peer.calls.map((c) => c.datums)).to.deep.equal([1000]);
    // the request builder alone: 2,500 series, and 1,000 wide datums, never over the service's limits
    const encode = createMetricsEncoder('weir');
    const narrow = buildMetricsRequest(Array.from({ length: 2500 }, (_, i) => encode(counter(`x${i}`, 1))), 'weir', Date.now());
    expect(narrow.calls.map((c) => c.datums.length)).to.deep.equal([1000, 1000, 500]);
    const tags = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, 'v'.repeat(1000)]));
    const wide = buildMetricsRequest(Array.from({ length: 1000 }, (_, i) => encode(counter(`y${i}`, 1, { tags }))), 'weir', Date.now());
    expect(wide.calls.length).to.be.above(30);
    for (const c of wide.calls) expect(Buffer.byteLength(JSON.stringify({ Namespace: 'weir', MetricData: c.datums }))).to.be.below(MAX_CALL_BYTES + 100);
  });

  it('compression = "gzip" gzips every body; "none" (the default) sends none gzipped, even large ones', async () => {
    await runSink(config({ compression: 'gzip' }), of([counter('z', 1)]));
    await runSink(config({ batch: { max_events: 500 } }), of(Array.from({ length: 500 }, (_, i) => counter(`big${i}`, 1, { tags: { t: 'x'.repeat(100) } }))));
    expect(peer.calls.map((c) => c.gzip)).to.deep.equal([true, false]);
    expect(peer.requests[1]!.raw.length).to.be.above(10_240);
    expect(peer.requests[0]!.headers['content-encoding']).to.equal('gzip');
  });

  it('log events and non-finite values are rejected and counted; aggregated histograms and out-of-window timestamps dropped as intentional discards', async () => {
    const ctx = testSinkContext('cloudw_monitor_metrics');
    const ds = await runSink(
      config(),
      of([
        logEvent({ message: 'not a metric' }),
        gauge('nan', Number.NaN),
        metric('hist', { type: 'aggregated_histogram', buckets: [{ upper_limit: 1, count: 1 }], count: 1, sum: 1 }),
        counter('old', 1, { ms: now - 15 * 24 * HOUR }),
        counter('ahead', 1, { ms: now + 3 * HOUR }),
        counter('ok', 1, { ms: now }),
      ]),
      ctx,
    );
    expect(count(ds, 'rejected')).to.equal(2);
    expect(count(ds, 'delivered')).to.equal(1);
    expect(ctx.metric('component_errors_total', { error_type: 'encoder_failed' })).to.equal(2);
    expect(ctx.metric('component_discarded_events_total', { intentional: 'true' })).to.equal(3);
    expect(peer.datums.map((d) => d.name)).to.deep.equal(['ok']);
  });
});
