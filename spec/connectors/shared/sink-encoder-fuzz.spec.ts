/**
 * Random and hostile events into the encoders of the request sinks that encode per event on their
 * own (labelstore, tsdb_metrics, siem_hec_metrics, logsvc_metrics), in-process: an encoder either
 * returns or throws an Error (the skeleton then rejects that one event), and what it returns is
 * bounded by the size of its input, so one odd event cannot blow up a batch's memory.
 * Runs in seconds; WEIR_FUZZ_RUNS=20000 and WEIR_FUZZ_SEED=<n> search longer or replay one.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import * as v from 'valibot';
import { LabelstoreConfig } from '../../../connectors/sinks/labelstore/config.js';
import { createLabelstoreEncoder } from '../../../connectors/sinks/labelstore/encoder.js';
import { createLogsvcEncoder } from '../../../connectors/sinks/logsvc_metrics/encoder.js';
import { createSiemEncoder } from '../../../connectors/sinks/siem_hec_metrics/encoder.js';
import { createTsdbEncoder } from '../../../connectors/sinks/tsdb_metrics/encoder.js';
import { defaultGlobals } from '../../../lib/config/global.js';
import { type Event, EventMetadata, LogEvent, type MetricKind, MetricEvent, type MetricValue, type Tags } from '../../../lib/event.js';
import { Float, type ObjectValue, Timestamp, type Value } from '../../../lib/value.js';
import { logsvcConfig } from '../sinks/logsvc_metrics/harness.js';
import { siemConfig } from '../sinks/siem_hec_metrics/harness.js';
import { tsdbConfig } from '../sinks/tsdb_metrics/harness.js';
import { testSinkContext } from '../../helpers/sink-context.js';

const RUNS = Number(process.env.WEIR_FUZZ_RUNS ?? 300);
const SEED = Number(process.env.WEIR_FUZZ_SEED ?? 20261124);
const NOW = 1_700_000_000_000;

const text = fc.string({ unit: 'binary', maxLength: 40 });
const number = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(0, -0, Infinity, -Infinity, NaN, Number.MAX_VALUE, Number.MIN_VALUE));
const timestamp = fc.option(
  fc.integer({ min: -1e13, max: 4e12 }).map((ms) => new Timestamp(ms)),
  { freq: 4 },
);
const tags: fc.Arbitrary<Tags | undefined> = fc.option(
  fc.dictionary(text, fc.oneof(text, fc.constant(null), fc.array(fc.option(text), { maxLength: 3 })), { maxKeys: 6 }),
  { freq: 4 },
).map((t) => t ?? undefined);
const metricValue: fc.Arbitrary<MetricValue> = fc.oneof(
  number.map((value) => ({ type: 'counter' as const, value })),
  number.map((value) => ({ type: 'gauge' as const, value })),
  fc.array(text, { maxLength: 5 }).map((values) => ({ type: 'set' as const, values })),
  fc
    .tuple(fc.array(fc.record({ value: number, rate: fc.nat() }), { maxLength: 6 }), fc.constantFrom('histogram' as const, 'summary' as const))
    .map(([samples, statistic]) => ({ type: 'distribution' as const, samples, statistic })),
  fc
    .tuple(fc.array(fc.record({ upper_limit: number, count: fc.nat() }), { maxLength: 6 }), fc.nat(), number)
    .map(([buckets, count, sum]) => ({ type: 'aggregated_histogram' as const, buckets, count, sum })),
  fc
    .tuple(fc.array(fc.record({ quantile: number, value: number }), { maxLength: 6 }), fc.nat(), number)
    .map(([quantiles, count, sum]) => ({ type: 'aggregated_summary' as const, quantiles, count, sum })),
);
const metric: fc.Arbitrary<Event> = fc
  .tuple(text, fc.constantFrom<MetricKind>('absolute', 'incremental'), metricValue, fc.option(text), tags, timestamp)
  .map(([name, kind, value, namespace, t, ts]) => new MetricEvent(name, kind, value, new EventMetadata('in', 'fuzz'), namespace ?? undefined, t, ts ?? undefined));

const scalar: fc.Arbitrary<Value> = fc.oneof(text, fc.integer(), fc.double().map((d) => new Float(d)), fc.boolean(), fc.constant(null), fc.integer({ min: -1e13, max: 4e12 }).map((ms) => new Timestamp(ms)));
const value: fc.Arbitrary<Value> = fc.letrec<{ v: Value }>((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(text, tie('v'), { maxKeys: 4 }) as fc.Arbitrary<Value>),
})).v;
/** A value nested `depth` levels: hostile depths exhaust recursive encoders. */
const nested = (depth: number): Value => {
  let x: Value = 'leaf';
  for (let i = 0; i < depth; i++) x = i % 2 ? [x] : { d: x };
  return x;
};
const log: fc.Arbitrary<Event> = fc
  .tuple(fc.dictionary(text, value, { maxKeys: 6 }), fc.option(fc.integer({ min: 1_000, max: 20_000 }), { freq: 6 }), fc.option(value, { freq: 2 }))
  .map(([fields, depth, app]) => {
    const f: ObjectValue = { ...fields };
    if (depth !== null) f.deep = nested(depth);
    if (app !== null) f.app = app;
    return new LogEvent(f, new EventMetadata('in', 'fuzz'));
  });

/** Bytes of an event's content as plain JSON would hold it (depth-guarded), the yardstick for the bound. */
function inputSize(e: Event): number {
  const walk = (x: unknown, depth: number): number => {
    if (depth > 64) return 8;
    if (x === null || x === undefined) return 4;
    if (typeof x === 'string') return Buffer.byteLength(x) + 2;
    if (typeof x !== 'object') return 24;
    if (x instanceof Float || x instanceof Timestamp) return 32;
    let n = 2;
    for (const k in x as object) n += Buffer.byteLength(k) + 4 + walk((x as Record<string, unknown>)[k], depth + 1);
    return n;
  };
  return e.type === 'log' ? walk(e.fields, 0) : walk({ n: e.name, ns: e.namespace, v: e.value, t: e.tags }, 0);
}

/** Encodes each event: it returns an object no larger than a fixed multiple of the input, or throws an Error. */
function check(encode: (e: Event) => { size: number }, arb: fc.Arbitrary<Event>) {
  fc.assert(
    fc.property(arb, (e) => {
      let out: { size: number };
      try {
        out = encode(e);
      } catch (err) {
        expect(err).to.be.instanceOf(Error);
        return;
      }
      expect(out.size).to.be.a('number').and.to.be.at.least(0);
      // envelopes, escapes and per-bucket lines add a bounded factor and a fixed head, never more
      expect(out.size).to.be.at.most(16 * inputSize(e) + 64 * 1024);
    }),
    { numRuns: RUNS, seed: SEED },
  );
}

describe('request sink encoders: fuzzed events', () => {
  const events = fc.oneof(metric, log);

  for (const codec of ['json', 'logfmt', 'text', 'raw_message'] as const) {
    it(`labelstore (${codec}): every log event is encoded within bounds or rejected; metrics are rejected`, () => {
      const config = v.parse(LabelstoreConfig, {
        type: 'labelstore',
        inputs: ['in'],
        endpoint: 'http://127.0.0.1:3100',
        labels: { app: '{{ app }}', '{{ app }}_x': 'y' },
        encoding: { codec },
        remove_label_fields: true,
      });
      const enc = createLabelstoreEncoder(config, () => NOW, { unlabeled: () => undefined });
      check((e) => enc.encode(e), events);
    });
  }

  for (const generation of [{ org: 'o', bucket: 'b', token: 't' }, { database: 'db' }]) {
    it(`tsdb_metrics (${'database' in generation ? 'v1' : 'v2'}): every metric is written within bounds or rejected`, () => {
      const enc = createTsdbEncoder(tsdbConfig('http://127.0.0.1:1', { ...generation, tags: { region: 'eu' }, quantiles: [0.5, 0.99] }), () => NOW);
      check((e) => enc.encode(e), events);
    });
  }

  it('siem_hec_metrics: every metric becomes one bounded envelope or is rejected', () => {
    const enc = createSiemEncoder(siemConfig('http://127.0.0.1:1', { index: '{{ tags.app }}-%Y', source: 'src' }), testSinkContext('siem_hec_metrics'), 'Europe/Berlin', () => NOW);
    check((e) => enc.encode(e), events);
  });

  it('logsvc_metrics: every metric becomes one bounded envelope or is rejected', () => {
    const enc = createLogsvcEncoder(
      logsvcConfig('http://127.0.0.1:1', { indexed_fields: ['host', '#tags.app'], event_type: '{{ tags.app }}' }),
      defaultGlobals().log_schema,
      testSinkContext('logsvc_metrics'),
      undefined,
      () => NOW,
    );
    check((e) => enc.encode(e), events);
  });
});
