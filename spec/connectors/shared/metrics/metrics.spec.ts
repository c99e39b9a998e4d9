import { expect } from 'chai';
import { mergeMetricValue } from '../../../../connectors/shared/metrics/merge.js';
import { MetricNormalizer } from '../../../../connectors/shared/metrics/normalize.js';
import { seriesKey, singleTagValue } from '../../../../connectors/shared/metrics/series.js';
import { distributionStatistic } from '../../../../connectors/shared/metrics/statistics.js';

describe('connectors/shared/metrics: series, normalisation, merging, statistics', () => {
  it('seriesKey: name, namespace and every tag value; tag order does not matter', () => {
    const a = seriesKey({ name: 'n', namespace: 'ns', tags: { b: '2', a: '1' } });
    expect(a).to.equal(seriesKey({ name: 'n', namespace: 'ns', tags: { a: '1', b: '2' } }));
    const others = [
      seriesKey({ name: 'n', namespace: undefined, tags: { a: '1', b: '2' } }),
      seriesKey({ name: 'n', namespace: 'ns', tags: { a: '1' } }),
      seriesKey({ name: 'n', namespace: 'ns', tags: { a: ['0', '1'], b: '2' } }),
      seriesKey({ name: 'n', namespace: 'ns', tags: { a: null, b: '2' } }),
      seriesKey({ name: 'ns', namespace: 'n', tags: { a: '1', b: '2' } }),
    ];
    expect(new Set([a, ...others]).size).to.equal(6);
  });

  it('singleTagValue: the last non-bare value', () => {
    expect([singleTagValue('x'), singleTagValue(null), singleTagValue(['a', 'b']), singleTagValue(['a', null]), singleTagValue([null])]).to.deep.equal(['x', undefined, 'b', 'a', undefined]);
  });

  it('toIncremental: deltas of absolute counters per series; a change of value type restarts the reference', () => {
    const n = new MetricNormalizer();
    const c = (value: number) => ({ type: 'counter' as const, value });
    expect(n.toIncremental('s', 'absolute', c(5))).to.equal(undefined);
    expect(n.toIncremental('s', 'absolute', c(7))).to.deep.equal({ kind: 'incremental', value: c(2) });
    expect(n.toIncremental('s', 'absolute', { type: 'gauge', value: 9 })).to.equal(undefined);
    expect(n.toIncremental('s', 'absolute', { type: 'gauge', value: 4 })).to.deep.equal({ kind: 'incremental', value: { type: 'gauge', value: -5 } });
    expect(n.toIncremental('s', 'incremental', c(3))).to.deep.equal({ kind: 'incremental', value: c(3) });
    expect(n.size).to.equal(1);
  });

  it('toAbsolute: running totals of incremental values, absolute values reset them', () => {
    const n = new MetricNormalizer();
    const g = (value: number) => ({ type: 'gauge' as const, value });
    expect(n.toAbsolute('s', 'incremental', g(2)).value).to.deep.equal(g(2));
    expect(n.toAbsolute('s', 'incremental', g(3))).to.deep.equal({ kind: 'absolute', value: g(5) });
    expect(n.toAbsolute('s', 'absolute', g(1))).to.deep.equal({ kind: 'absolute', value: g(1) });
    expect(n.toAbsolute('s', 'incremental', g(1)).value).to.deep.equal(g(2));
    const set = { type: 'set' as const, values: ['a'] };
    expect(n.toAbsolute('t', 'incremental', set)).to.deep.equal({ kind: 'incremental', value: set });
  });

  it('mergeMetricValue: incremental values add, absolute ones replace, mismatched shapes take the newer', () => {
    expect(mergeMetricValue('incremental', { type: 'counter', value: 1 }, { type: 'counter', value: 2 })).to.deep.equal({ type: 'counter', value: 3 });
    expect(mergeMetricValue('absolute', { type: 'gauge', value: 1 }, { type: 'gauge', value: 2 })).to.deep.equal({ type: 'gauge', value: 2 });
    expect(mergeMetricValue('incremental', { type: 'set', values: ['a', 'b'] }, { type: 'set', values: ['b', 'c'] })).to.deep.equal({ type: 'set', values: ['a', 'b', 'c'] });
    const h = (counts: number[], bounds = [1, 2]) => ({
      type: 'aggregated_histogram' as const,
      buckets: bounds.map((upper_limit, i) => ({ upper_limit, count: counts[i]! })),
      count: counts.reduce((a, b) => a + b, 0),
      sum: 10,
    });
    expect(mergeMetricValue('incremental', h([1, 2]), h([3, 4]))).to.deep.equal({ ...h([4, 6]), sum: 20 });
    expect(mergeMetricValue('incremental', h([1, 2]), h([3, 4], [1, 5]))).to.deep.equal(h([3, 4], [1, 5]));
    const d = (v: number) => ({ type: 'distribution' as const, samples: [{ value: v, rate: 1 }], statistic: 'summary' as const });
    expect(mergeMetricValue('incremental', d(1), d(2))).to.deep.equal({ ...d(1), samples: [{ value: 1, rate: 1 }, { value: 2, rate: 1 }] });
  });

  it('distributionStatistic: rate-0 samples ignored, quantiles by cumulative count (nearest rank)', () => {
    expect(distributionStatistic([], [0.5])).to.equal(undefined);
    expect(distributionStatistic([{ value: 3, rate: 0 }], [0.5])).to.equal(undefined);
    expect(distributionStatistic([{ value: 2, rate: 3 }], [0.1, 0.9])).to.deep.equal({ min: 2, max: 2, median: 2, avg: 2, sum: 6, count: 3, quantiles: [2, 2] });
    // values 10, 20, 30, 40, 50 once each: rank round(p × 5)
    const five = [50, 10, 40, 20, 30].map((value) => ({ value, rate: 1 }));
    expect(distributionStatistic(five, [0, 0.2, 0.29, 0.31, 1])).to.deep.equal({ min: 10, max: 50, median: 30, avg: 30, sum: 150, count: 5, quantiles: [10, 10, 10, 20, 50] });
    // weighted: 1×1, 5×3 -> count 4, sum 16, median rank 2 -> 5
    expect(distributionStatistic([{ value: 5, rate: 3 }, { value: 1, rate: 1 }], [0.25])).to.deep.equal({ min: 1, max: 5, median: 5, avg: 4, sum: 16, count: 4, quantiles: [1] });
  });
});
