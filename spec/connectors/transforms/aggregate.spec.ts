import { expect } from 'chai';
import { Subject, map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { BatchNotifier, type DeliveryStatus, type EventBatch, EventMetadata, type MetricKind, MetricEvent, type MetricValue, type Tags, attachNotifier, settleAll } from '../../../lib/event.js';
import { Timestamp } from '../../../lib/value.js';
import { aggregateTransform } from '../../../connectors/transforms/aggregate/index.js';
import { configIssues, parseConfig, transformContext } from './context.js';

const meta = () => new EventMetadata('in', 'test');
const counter = (name: string, kind: MetricKind, value: number, tags?: Tags) => new MetricEvent(name, kind, { type: 'counter', value }, meta(), undefined, tags);
const gauge = (name: string, kind: MetricKind, value: number, tags?: Tags) => new MetricEvent(name, kind, { type: 'gauge', value }, meta(), undefined, tags);
const metric = (name: string, kind: MetricKind, value: MetricValue, extra: { namespace?: string; tags?: Tags; ts?: Timestamp; intervalMs?: number } = {}) =>
  new MetricEvent(name, kind, value, meta(), extra.namespace, extra.tags, extra.ts, extra.intervalMs);

/** Runs the transform in virtual time on a hot input; output batches as Vector's JSON. */
function marbles(options: Record<string, unknown>, input: string, values: Record<string, EventBatch>, expected: string, out: Record<string, unknown[]>, until = '') {
  const rx = new TestScheduler((a, e) => {
    expect(a).to.deep.equal(e);
  });
  const ctx = transformContext('aggregate', { scheduler: rx });
  const config = parseConfig(aggregateTransform, options);
  rx.run(({ hot, expectObservable }) => {
    const result = hot<EventBatch>(input, values).pipe(aggregateTransform.build(config, ctx), map((b) => (b as EventBatch).map((e) => (e as MetricEvent).toJSON())));
    if (until) expectObservable(result, until).toBe(expected, out);
    else expectObservable(result).toBe(expected, out);
  });
  return ctx.registry;
}

const json = (m: MetricEvent) => m.toJSON();

describe('connectors/transforms/aggregate', () => {
  it("applies Vector's defaults and names a bad option", () => {
    const c = parseConfig(aggregateTransform, {});
    expect(c.interval_ms).to.equal(10_000);
    expect(c.mode).to.equal('Auto');
    expect(configIssues(aggregateTransform, { mode: 'average' })[0]).to.match(/^mode: must be one of Auto, Sum, Latest, Count, Diff, Max, Min, Mean, Stdev/);
    expect(configIssues(aggregateTransform, { interval_ms: 0 })[0]).to.match(/^interval_ms/);
  });

  it('Auto flushes every interval_ms: incremental counters summed, absolute gauges last, each series apart', () => {
    const registry = marbles(
      { interval_ms: 50 },
      'a 9ms b 49ms c 99ms |',
      {
        a: [counter('req', 'incremental', 1, { host: 'a' }), gauge('mem', 'absolute', 10)],
        b: [counter('req', 'incremental', 2, { host: 'a' }), counter('req', 'incremental', 5, { host: 'b' }), gauge('mem', 'absolute', 7)],
        c: [counter('req', 'incremental', 4, { host: 'a' })],
      },
      '50ms x 49ms y 59ms |',
      {
        x: [json(counter('req', 'incremental', 3, { host: 'a' })), json(gauge('mem', 'absolute', 7)), json(counter('req', 'incremental', 5, { host: 'b' }))],
        y: [json(counter('req', 'incremental', 4, { host: 'a' }))],
      },
    );
    expect(registry.sum('aggregate_events_recorded_total')).to.equal(6);
    // ticks at 50, 100 and 150 ms and the final flush at completion (160 ms)
    expect(registry.sum('aggregate_flushes_total')).to.equal(4);
  });

  it('flushes at the default 10 s and on completion, not before', () => {
    marbles({}, 'a 11s |', { a: [counter('c', 'incremental', 1)] }, '10s x 1s |', { x: [json(counter('c', 'incremental', 1))] });
    marbles({}, 'a 5s |', { a: [counter('c', 'incremental', 1)] }, '5001ms (x|)', { x: [json(counter('c', 'incremental', 1))] });
  });

  it('keys series by namespace and tags: a metric with another namespace or tag value is its own series', () => {
    marbles(
      { interval_ms: 10 },
      'a 20ms |',
      { a: [metric('c', 'incremental', { type: 'counter', value: 1 }, { namespace: 'x' }), metric('c', 'incremental', { type: 'counter', value: 2 }, { namespace: 'y' }), metric('c', 'incremental', { type: 'counter', value: 4 }, { namespace: 'x' })] },
      '10ms x 10ms |',
      { x: [json(metric('c', 'incremental', { type: 'counter', value: 5 }, { namespace: 'x' })), json(metric('c', 'incremental', { type: 'counter', value: 2 }, { namespace: 'y' }))] },
    );
  });

  it('Auto: a kind change within a series is a failed update; the newer metric is kept', () => {
    const registry = marbles({ interval_ms: 10 }, 'a 20ms |', { a: [counter('c', 'incremental', 1), counter('c', 'absolute', 9), counter('c', 'incremental', 2)] }, '10ms x 10ms |', {
      x: [json(counter('c', 'incremental', 2))],
    });
    expect(registry.sum('aggregate_failed_updates')).to.equal(1);
  });

  it('merges distributions, histograms and sets as Vector adds them; summaries keep the newer value', () => {
    const hist = (counts: number[], count: number, sum: number): MetricValue => ({ type: 'aggregated_histogram', buckets: [{ upper_limit: 1, count: counts[0]! }, { upper_limit: 2, count: counts[1]! }], count, sum });
    marbles(
      { interval_ms: 10 },
      'a 20ms |',
      {
        a: [
          metric('d', 'incremental', { type: 'distribution', samples: [{ value: 1, rate: 1 }], statistic: 'histogram' }),
          metric('h', 'incremental', hist([1, 2], 3, 4)),
          metric('s', 'incremental', { type: 'set', values: ['a', 'b'] }),
          metric('d', 'incremental', { type: 'distribution', samples: [{ value: 2, rate: 3 }], statistic: 'histogram' }),
          metric('h', 'incremental', hist([0, 1], 1, 1.5)),
          metric('s', 'incremental', { type: 'set', values: ['b', 'c'] }),
          metric('q', 'incremental', { type: 'aggregated_summary', quantiles: [{ quantile: 0.5, value: 1 }], count: 1, sum: 1 }),
          metric('q', 'incremental', { type: 'aggregated_summary', quantiles: [{ quantile: 0.5, value: 3 }], count: 1, sum: 3 }),
        ],
      },
      '10ms x 10ms |',
      {
        x: [
          json(metric('d', 'incremental', { type: 'distribution', samples: [{ value: 1, rate: 1 }, { value: 2, rate: 3 }], statistic: 'histogram' })),
          json(metric('h', 'incremental', hist([1, 3], 4, 5.5))),
          json(metric('s', 'incremental', { type: 'set', values: ['a', 'b', 'c'] })),
          json(metric('q', 'incremental', { type: 'aggregated_summary', quantiles: [{ quantile: 0.5, value: 3 }], count: 1, sum: 3 })),
        ],
      },
    );
  });

  it('widens timestamp and interval over the summed metrics', () => {
    const t = (s: string) => Timestamp.parse(s)!;
    marbles(
      { interval_ms: 10 },
      'a 20ms |',
      { a: [metric('c', 'incremental', { type: 'counter', value: 1 }, { ts: t('2024-01-01T00:00:05Z'), intervalMs: 1000 }), metric('c', 'incremental', { type: 'counter', value: 1 }, { ts: t('2024-01-01T00:00:00Z'), intervalMs: 2000 })] },
      '10ms x 10ms |',
      { x: [json(metric('c', 'incremental', { type: 'counter', value: 2 }, { ts: t('2024-01-01T00:00:00Z'), intervalMs: 6000 }))] },
    );
  });

  it('Sum: incremental summed, absolute passes at once', () => {
    marbles({ interval_ms: 10, mode: 'Sum' }, 'a 20ms |', { a: [counter('c', 'incremental', 1), gauge('g', 'absolute', 3), counter('c', 'incremental', 2)] }, 'p 9ms x 10ms |', {
      p: [json(gauge('g', 'absolute', 3))],
      x: [json(counter('c', 'incremental', 3))],
    });
  });

  it('Latest: absolute keeps the last, incremental passes at once', () => {
    marbles({ interval_ms: 10, mode: 'Latest' }, 'a 20ms |', { a: [gauge('g', 'absolute', 1), counter('c', 'incremental', 2), gauge('g', 'absolute', 3)] }, 'p 9ms x 10ms |', {
      p: [json(counter('c', 'incremental', 2))],
      x: [json(gauge('g', 'absolute', 3))],
    });
  });

  it('Count: counts the metrics of each series, of either kind', () => {
    marbles({ interval_ms: 10, mode: 'Count' }, 'a 20ms |', { a: [gauge('g', 'absolute', 1), counter('c', 'incremental', 7), gauge('g', 'absolute', 3), gauge('g', 'absolute', 3)] }, '10ms x 10ms |', {
      x: [json(counter('g', 'absolute', 3)), json(counter('c', 'incremental', 1))],
    });
  });

  it('Diff: the change of an absolute value since the last flush; a counter that went down starts over', () => {
    marbles(
      { interval_ms: 10, mode: 'Diff' },
      '5ms a 9ms b 9ms c 2ms |',
      { a: [counter('c', 'absolute', 10), gauge('g', 'absolute', 5)], b: [counter('c', 'absolute', 14), gauge('g', 'absolute', 2)], c: [counter('c', 'absolute', 3), counter('i', 'incremental', 1)] },
      '10ms x 9ms y 4ms p 2ms (z|)',
      {
        x: [json(counter('c', 'absolute', 10)), json(gauge('g', 'absolute', 5))],
        y: [json(counter('c', 'absolute', 4)), json(gauge('g', 'absolute', -3))],
        p: [json(counter('i', 'incremental', 1))],
        z: [json(counter('c', 'absolute', 3))],
      },
    );
  });

  it('Max and Min keep the extreme gauge of an interval; incremental passes', () => {
    const input = { a: [gauge('g', 'absolute', 4), gauge('g', 'absolute', 9), counter('c', 'incremental', 1), gauge('g', 'absolute', 1)] };
    // built per run: the operator takes the events it keeps
    marbles({ interval_ms: 10, mode: 'Max' }, 'a 20ms |', input, 'p 9ms x 10ms |', { p: [json(counter('c', 'incremental', 1))], x: [json(gauge('g', 'absolute', 9))] });
    const again = { a: [gauge('g', 'absolute', 4), gauge('g', 'absolute', 9), counter('c', 'incremental', 1), gauge('g', 'absolute', 1)] };
    marbles({ interval_ms: 10, mode: 'Min' }, 'a 20ms |', again, 'p 9ms x 10ms |', { p: [json(counter('c', 'incremental', 1))], x: [json(gauge('g', 'absolute', 1))] });
  });

  it('Mean and Stdev of the gauges of an interval; other absolute metrics are dropped', () => {
    const input = () => ({ a: [gauge('g', 'absolute', 2), gauge('g', 'absolute', 4), counter('c', 'absolute', 1), gauge('g', 'absolute', 4), gauge('g', 'absolute', 4), gauge('g', 'absolute', 5), gauge('g', 'absolute', 5), gauge('g', 'absolute', 7), gauge('g', 'absolute', 9)] });
    const registry = marbles({ interval_ms: 10, mode: 'Mean' }, 'a 20ms |', input(), '10ms x 10ms |', { x: [json(gauge('g', 'absolute', 5))] });
    expect(registry.sum('component_discarded_events_total', { intentional: 'true' })).to.equal(1);
    marbles({ interval_ms: 10, mode: 'Stdev' }, 'a 20ms |', input(), '10ms x 10ms |', { x: [json(gauge('g', 'absolute', 2))] });
  });

  it('Mean: the result carries the latest timestamp of the gauges averaged', () => {
    const t = (s: string) => Timestamp.parse(s)!;
    const g = (v: number, ts: string) => metric('g', 'absolute', { type: 'gauge', value: v }, { ts: t(ts) });
    marbles({ interval_ms: 10, mode: 'Mean' }, 'a 20ms |', { a: [g(1, '2024-01-01T00:00:07Z'), g(3, '2024-01-01T00:00:09Z'), g(5, '2024-01-01T00:00:08Z')] }, '10ms x 10ms |', {
      x: [json(metric('g', 'absolute', { type: 'gauge', value: 3 }, { ts: t('2024-01-01T00:00:09Z') }))],
    });
  });

  it('acknowledges the inputs of an aggregate once the aggregate is settled', () => {
    const statuses: DeliveryStatus[] = [];
    const notifier = new BatchNotifier((s) => statuses.push(s));
    const batch = [counter('c', 'incremental', 1), counter('c', 'incremental', 2)];
    attachNotifier(batch, notifier);
    const rx = new TestScheduler(() => undefined);
    const ctx = transformContext('aggregate', { scheduler: rx });
    const input = new Subject<EventBatch>();
    const out: EventBatch[] = [];
    input.pipe(aggregateTransform.build(parseConfig(aggregateTransform, {}), ctx)).subscribe((b) => out.push(b as EventBatch));
    input.next(batch);
    expect(statuses).to.deep.equal([]);
    input.complete();
    expect(out.flat()).to.have.length(1);
    settleAll(out.flat(), 'delivered');
    expect(statuses).to.deep.equal(['delivered']);
  });
});
