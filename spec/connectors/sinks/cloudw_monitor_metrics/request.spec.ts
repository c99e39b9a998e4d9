/**
 * The PutMetricData request builder as a property: for random batches of every metric type every
 * call keeps the service's limits (≤ 1,000 datums, ≤ 30 dimensions, ≤ 150 values, finite values,
 * under 1 MiB) and every metric is accounted for exactly once, sent or set aside.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { createMetricsEncoder } from '../../../../connectors/sinks/cloudw_monitor_metrics/encoder.js';
import { type Datum, buildMetricsRequest } from '../../../../connectors/sinks/cloudw_monitor_metrics/request.js';
import { type Event, EventMetadata, MetricEvent, type MetricValue } from '../../../../lib/event.js';
import { Timestamp } from '../../../../lib/value.js';

const RUNS = Number(process.env.WEIR_FUZZ_RUNS ?? 60);
const SEED = Number(process.env.WEIR_FUZZ_SEED ?? 20261124);
const NOW = 1_800_000_000_000;
const HOUR = 3_600_000;

const finite = fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 });
const value: fc.Arbitrary<MetricValue> = fc.oneof<fc.Arbitrary<MetricValue>[]>(
  finite.map((v) => ({ type: 'counter' as const, value: Math.abs(v) })),
  finite.map((v) => ({ type: 'gauge' as const, value: v })),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 10 }).map((values) => ({ type: 'set' as const, values })),
  fc
    .oneof(
      fc.array(fc.record({ value: fc.integer({ min: 0, max: 400 }), rate: fc.integer({ min: 0, max: 5 }) }), { maxLength: 40 }),
      // wide distributions: more distinct values than one datum takes
      fc.integer({ min: 100, max: 400 }).map((n) => Array.from({ length: n }, (_, i) => ({ value: i / 2, rate: 1 + (i % 3) }))),
    )
    .map((samples) => ({ type: 'distribution' as const, samples, statistic: 'histogram' as const })),
  fc.constant<MetricValue>({ type: 'aggregated_summary', quantiles: [], count: 1, sum: 1 }),
);
const metric = fc
  .record({
    name: fc.constantFrom('a', 'b', 'c'),
    kind: fc.constantFrom('incremental' as const, 'absolute' as const),
    value,
    namespace: fc.option(fc.constantFrom('x', 'y'), { nil: undefined }),
    tags: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 1100 }), { maxKeys: 40 }),
    offset: fc.option(fc.integer({ min: -20 * 24 * HOUR, max: 5 * HOUR }), { nil: undefined }),
  })
  .map((m) => new MetricEvent(m.name, m.kind, m.value, new EventMetadata('in', 'fuzz'), m.namespace, m.tags, m.offset === undefined ? undefined : new Timestamp(NOW + m.offset)));

describe('connectors/sinks/cloudw_monitor_metrics: the request builder keeps every limit (property)', () => {
  it('≤ 1,000 datums and under 1 MiB per call, ≤ 30 dimensions, ≤ 150 values, finite; every metric once', () => {
    fc.assert(
      fc.property(fc.array(metric, { minLength: 1, maxLength: 40 }), (events) => {
        const encode = createMetricsEncoder('weir');
        const items = events.map(encode);
        for (const ns of new Set(items.map((i) => i.namespace))) {
          const mine = items.filter((i) => i.namespace === ns);
          const req = buildMetricsRequest(mine, ns, NOW);
          const seen = new Set<Event>();
          for (const call of req.calls) {
            expect(call.datums.length).to.be.at.most(1000);
            expect(Buffer.byteLength(JSON.stringify({ Namespace: ns, MetricData: call.datums }))).to.be.below(1_048_576);
            for (const d of call.datums as Datum[]) {
              expect(d.Dimensions?.length ?? 0).to.be.at.most(30);
              for (const dim of d.Dimensions ?? []) expect(dim.Value.trim()).to.not.equal('');
              expect((d.Value === undefined) !== (d.Values === undefined)).to.equal(true);
              if (d.Values) {
                expect(d.Values.length).to.be.within(1, 150);
                expect(d.Counts!.length).to.equal(d.Values.length);
              } else expect(Number.isFinite(d.Value)).to.equal(true);
            }
            for (const e of call.events) seen.add(e);
          }
          for (const e of [...req.outOfRange, ...req.unsupported]) seen.add(e);
          expect(seen.size).to.equal(mine.length);
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
