/**
 * The `vector` protocol's wire format, proved against an independent encoder: protobufjs with
 * Vector's own message definitions (vector-proto-text.ts), never weir's `.proto` files or codec.
 * weir's bytes must decode there to exactly the expected values, messages built there must decode
 * in weir with exact types, and weir → weir must keep every value and metric kind.
 */
import { expect } from 'chai';
import { decodePushEvents, type DecodeShape } from '../../../../connectors/shared/vector/decode.js';
import { WrapperEncoder, pushEventsRequest } from '../../../../connectors/shared/vector/encode.js';
import { EventMetadata, LogEvent, MetricEvent, type Event, type MetricValue } from '../../../../lib/event.js';
import { Float, Timestamp, type ObjectValue, valueEquals } from '../../../../lib/value.js';
import { vectorReference } from './vector-proto-text.js';

const ref = vectorReference();
const NOW = new Timestamp(1_700_000_000_123, 456);
const SHAPE: DecodeShape = { sourceId: 'in', sourceType: 'vector', messageKey: 'message', sourceTypeKey: 'source_type', timestampKey: 'timestamp' };
const RAW: DecodeShape = { ...SHAPE, sourceTypeKey: undefined, timestampKey: undefined };

const b64 = (s: string) => Buffer.from(s).toString('base64');
const encodeAll = (events: Event[]) => {
  const enc = new WrapperEncoder();
  return pushEventsRequest(events.map((e) => enc.encode(e)));
};
const meta = (value?: ObjectValue, secrets?: Map<string, string>) => new EventMetadata('src', 'demo', undefined, value, secrets);

/** Every value kind, with the edge cases of each. */
const EVERY_VALUE: ObjectValue = {
  bytes: 'héllo',
  empty: '',
  int: 42,
  zero: 0,
  negative: -5,
  big: 2 ** 53 - 1,
  min: -(2 ** 53) + 1,
  float: new Float(1.5),
  integral_float: new Float(2),
  float_zero: new Float(0),
  yes: true,
  no: false,
  nothing: null,
  ts: new Timestamp(1_700_000_000_123, 456_789),
  ts_before_1970: new Timestamp(-1500, 0),
  map: { inner: { deep: [1, new Float(1), 'one'] }, empty: {} },
  array: [null, true, [], {}],
};

describe('vector protocol wire format', () => {
  describe('weir → Vector: weir bytes decoded by Vector’s definitions', () => {
    it('a log keeps every value kind with its exact wire type', () => {
      const decoded = ref.decodePush(encodeAll([new LogEvent(EVERY_VALUE, meta({ tenant: 'a' }))]));
      const log = (decoded.events[0] as { log: { fields: Record<string, Record<string, unknown>>; metadata_full: Record<string, unknown> } }).log;
      const f = log.fields;
      expect(f.bytes).to.deep.equal({ raw_bytes: b64('héllo'), kind: 'raw_bytes' });
      expect(f.empty).to.deep.equal({ raw_bytes: '', kind: 'raw_bytes' });
      expect(f.int).to.deep.equal({ integer: '42', kind: 'integer' });
      expect(f.zero).to.deep.equal({ integer: '0', kind: 'integer' });
      expect(f.negative).to.deep.equal({ integer: '-5', kind: 'integer' });
      expect(f.big).to.deep.equal({ integer: String(2 ** 53 - 1), kind: 'integer' });
      expect(f.min).to.deep.equal({ integer: String(-(2 ** 53) + 1), kind: 'integer' });
      expect(f.float).to.deep.equal({ float: 1.5, kind: 'float' });
      expect(f.integral_float).to.deep.equal({ float: 2, kind: 'float' });
      expect(f.float_zero).to.deep.equal({ float: 0, kind: 'float' });
      expect(f.yes).to.deep.equal({ boolean: true, kind: 'boolean' });
      expect(f.no).to.deep.equal({ boolean: false, kind: 'boolean' });
      expect(f.nothing).to.deep.equal({ null: 'NULL_VALUE', kind: 'null' });
      expect(f.ts).to.deep.equal({ timestamp: { seconds: '1700000000', nanos: 123_456_789 }, kind: 'timestamp' });
      expect(f.ts_before_1970).to.deep.equal({ timestamp: { seconds: '-2', nanos: 500_000_000 }, kind: 'timestamp' });
      expect(f.map).to.deep.equal({
        kind: 'map',
        map: {
          fields: {
            inner: { kind: 'map', map: { fields: { deep: { kind: 'array', array: { items: [{ integer: '1', kind: 'integer' }, { float: 1, kind: 'float' }, { raw_bytes: b64('one'), kind: 'raw_bytes' }] } } } } },
            empty: { kind: 'map', map: {} },
          },
        },
      });
      expect(f.array).to.deep.equal({ kind: 'array', array: { items: [{ null: 'NULL_VALUE', kind: 'null' }, { boolean: true, kind: 'boolean' }, { kind: 'array', array: {} }, { kind: 'map', map: {} }] } });
      expect(log.metadata_full).to.deep.equal({
        value: { kind: 'map', map: { fields: { tenant: { raw_bytes: b64('a'), kind: 'raw_bytes' } } } },
        source_id: 'src',
        source_type: 'demo',
        _source_id: 'source_id',
        _source_type: 'source_type',
      });
    });

    it('is byte for byte what Vector’s definitions encode for the same message', () => {
      const event = new LogEvent({ message: 'hi', n: -1, f: new Float(0.25), t: new Timestamp(1000, 1), m: { a: [true, null] } }, meta(undefined, new Map([['k', 's']])));
      const mine = encodeAll([event]);
      const value = (v: object) => v;
      const theirs = ref.encodePush({
        events: [
          {
            log: {
              fields: {
                message: value({ raw_bytes: b64('hi') }),
                n: value({ integer: '-1' }),
                f: value({ float: 0.25 }),
                t: value({ timestamp: { seconds: 1, nanos: 1 } }),
                m: value({ map: { fields: { a: { array: { items: [{ boolean: true }, { null: 'NULL_VALUE' }] } } } } }),
              },
              metadata: { map: {} },
              metadata_full: { value: { map: {} }, source_id: 'src', source_type: 'demo', secrets: { entries: { k: 's' } } },
            },
          },
        ],
      });
      expect(mine.toString('hex')).to.equal(theirs.toString('hex'));
    });

    it('every metric kind, tags and namespace as Vector’s newest message forms', () => {
      const ts = new Timestamp(1_700_000_000_000, 5);
      const m = (value: MetricValue, tags?: MetricEvent['tags']) => new MetricEvent('req', 'absolute', value, meta(), 'app', tags, ts, 10_000);
      const events = [
        m({ type: 'counter', value: 3.5 }, { host: 'a', bare: null, multi: ['x', null, 'y'] }),
        new MetricEvent('g', 'incremental', { type: 'gauge', value: -1 }, meta()),
        m({ type: 'set', values: ['a', 'b'] }),
        m({ type: 'distribution', samples: [{ value: 1.5, rate: 2 }], statistic: 'summary' }),
        m({ type: 'aggregated_histogram', buckets: [{ upper_limit: 1, count: 3 }, { upper_limit: Infinity, count: 4 }], count: 7, sum: 9.5 }),
        m({ type: 'aggregated_summary', quantiles: [{ quantile: 0.5, value: 2 }], count: 7, sum: 9.5 }),
      ];
      const decoded = ref.decodePush(encodeAll(events)).events.map((e) => (e as { metric: Record<string, unknown> }).metric);
      const head = { name: 'req', namespace: 'app', kind: 'Absolute', interval_ms: 10_000, timestamp: { seconds: '1700000000', nanos: 5 } };
      expect(decoded[0]).to.deep.include({ ...head, counter: { value: 3.5 }, value: 'counter' });
      expect(decoded[0]!.tags_v1).to.deep.equal({ host: 'a', multi: 'y' });
      expect(decoded[0]!.tags_v2).to.deep.equal({
        host: { values: [{ value: 'a', _value: 'value' }] },
        bare: { values: [{}] },
        multi: { values: [{ value: 'x', _value: 'value' }, {}, { value: 'y', _value: 'value' }] },
      });
      expect(decoded[1]).to.deep.include({ name: 'g', gauge: { value: -1 }, value: 'gauge' });
      expect(decoded[1]).to.not.have.any.keys('kind', 'namespace', 'timestamp', 'interval_ms');
      expect(decoded[2]).to.deep.include({ ...head, set: { values: ['a', 'b'] } });
      expect(decoded[3]).to.deep.include({ ...head, distribution2: { samples: [{ value: 1.5, rate: 2 }], statistic: 'Summary' } });
      expect(decoded[4]).to.deep.include({ ...head, aggregated_histogram3: { buckets: [{ upper_limit: 1, count: '3' }, { upper_limit: Infinity, count: '4' }], count: '7', sum: 9.5 } });
      expect(decoded[5]).to.deep.include({ ...head, aggregated_summary3: { quantiles: [{ quantile: 0.5, value: 2 }], count: '7', sum: 9.5 } });
    });
  });

  describe('Vector → weir: messages built with Vector’s definitions decoded by weir', () => {
    it('hand-written bytes of a one-field log', () => {
      // PushEventsRequest{events:[EventWrapper{log:Log{fields:{"a": Value{integer: 1}}}}]}
      const bytes = Buffer.from('0a0b0a090a070a01611202200' + '1', 'hex');
      const { events, dropped } = decodePushEvents(bytes, RAW, NOW);
      expect(dropped.size).to.equal(0);
      expect((events[0] as LogEvent).fields).to.deep.equal({ a: 1 });
    });

    it('every value kind arrives with its exact type', () => {
      const bytes = ref.encodePush({
        events: [
          {
            log: {
              fields: {
                bytes: { raw_bytes: b64('héllo') },
                int: { integer: '-7' },
                float: { float: 3 },
                yes: { boolean: true },
                no: { boolean: false },
                nothing: { null: 'NULL_VALUE' },
                ts: { timestamp: { seconds: 1_700_000_000, nanos: 1_000_001 } },
                map: { map: { fields: { k: { array: { items: [{ integer: '0' }, { float: 0 }, { raw_bytes: '' }] } } } } },
              },
            },
          },
        ],
      });
      const { events } = decodePushEvents(bytes, RAW, NOW);
      const f = (events[0] as LogEvent).fields;
      const expected: ObjectValue = {
        bytes: 'héllo',
        int: -7,
        float: new Float(3),
        yes: true,
        no: false,
        nothing: null,
        ts: new Timestamp(1_700_000_000_001, 1),
        map: { k: [0, new Float(0), ''] },
      };
      expect(valueEquals(f, expected), JSON.stringify(f)).to.equal(true);
      expect(f.float).to.be.instanceOf(Float);
      expect(typeof f.int).to.equal('number');
    });

    it('a log stamps the source type and receive time only where they are missing, as Vector’s legacy namespace does', () => {
      const bytes = ref.encodePush({ events: [{ log: { fields: { message: { raw_bytes: b64('x') } } } }, { log: { fields: { timestamp: { integer: '1' }, source_type: { raw_bytes: b64('file') } } } }] });
      const [a, b] = decodePushEvents(bytes, SHAPE, NOW).events as LogEvent[];
      expect(a!.fields).to.deep.equal({ message: 'x', source_type: 'vector', timestamp: NOW });
      expect(b!.fields).to.deep.equal({ timestamp: 1, source_type: 'file' });
      expect(a!.meta.sourceId).to.equal('in');
      expect(a!.meta.sourceType).to.equal('vector');
    });

    it('a root that is not an object goes under the message key; metadata and secrets come along', () => {
      const bytes = ref.encodePush({
        events: [
          { log: { fields: { '.': { null: 'NULL_VALUE' } }, value: { raw_bytes: b64('plain') }, metadata_full: { value: { map: { fields: { team: { raw_bytes: b64('x') } } } }, secrets: { entries: { token: 'abc' } } } } },
          { log: { fields: { a: { integer: '1' } }, metadata: { map: { fields: { old: { boolean: true } } } } } },
        ],
      });
      const [a, b] = decodePushEvents(bytes, RAW, NOW).events as LogEvent[];
      expect(a!.fields).to.deep.equal({ message: 'plain' });
      expect(a!.meta.value).to.deep.equal({ team: 'x' });
      expect([...a!.meta.secrets!]).to.deep.equal([['token', 'abc']]);
      expect(b!.meta.value).to.deep.equal({ old: true });
    });

    it('every metric message form, older ones included, and tags of both versions', () => {
      const ts = { seconds: 1_700_000_000, nanos: 7 };
      const bytes = ref.encodePush({
        events: [
          { metric: { name: 'c', kind: 'Absolute', counter: { value: 2 }, namespace: 'ns', interval_ms: 500, timestamp: ts, tags_v2: { h: { values: [{ value: 'a' }] }, bare: { values: [{}] }, multi: { values: [{ value: 'x' }, { value: 'y' }] } } } },
          { metric: { name: 'g', gauge: { value: -0.5 }, tags_v1: { only_v1: 'z' } } },
          { metric: { name: 's', set: { values: ['p', 'q'] } } },
          { metric: { name: 'd1', distribution1: { values: [1, 2], sample_rates: [3, 4], statistic: 'Summary' } } },
          { metric: { name: 'd2', distribution2: { samples: [{ value: 1, rate: 1 }] } } },
          { metric: { name: 'h1', aggregated_histogram1: { buckets: [1, 2], counts: [5, 6], count: 11, sum: 3.5 } } },
          { metric: { name: 'h2', aggregated_histogram2: { buckets: [{ upper_limit: 1, count: 5 }], count: 5, sum: 1 } } },
          { metric: { name: 'h3', aggregated_histogram3: { buckets: [{ upper_limit: 1, count: '9000000000' }], count: '9000000000', sum: 1 } } },
          { metric: { name: 'q1', aggregated_summary1: { quantiles: [0.5, 0.9], values: [1, 2], count: 3, sum: 4 } } },
          { metric: { name: 'q2', aggregated_summary2: { quantiles: [{ quantile: 0.5, value: 1 }], count: 3, sum: 4 } } },
          { metric: { name: 'q3', aggregated_summary3: { quantiles: [{ quantile: 0.5, value: 1 }], count: '3', sum: 4 } } },
          { metric: { name: 'sk', sketch: { agent_dd_sketch: { count: 1 } } } },
          { trace: { fields: { span: { raw_bytes: b64('x') } } } },
        ],
      });
      const { events, dropped } = decodePushEvents(bytes, RAW, NOW);
      expect(Object.fromEntries(dropped)).to.deep.equal({ 'sketch metrics are not supported': 1, 'traces are not supported': 1 });
      const ms = events as MetricEvent[];
      expect(ms.map((m) => m.name)).to.deep.equal(['c', 'g', 's', 'd1', 'd2', 'h1', 'h2', 'h3', 'q1', 'q2', 'q3']);
      expect(ms[0]).to.deep.include({ kind: 'absolute', namespace: 'ns', intervalMs: 500, value: { type: 'counter', value: 2 }, tags: { h: 'a', bare: null, multi: ['x', 'y'] } });
      expect(ms[0]!.timestamp!.equals(new Timestamp(1_700_000_000_000, 7))).to.equal(true);
      expect(ms[1]).to.deep.include({ kind: 'incremental', namespace: undefined, intervalMs: undefined, timestamp: undefined, value: { type: 'gauge', value: -0.5 }, tags: { only_v1: 'z' } });
      expect(ms[2]!.value).to.deep.equal({ type: 'set', values: ['p', 'q'] });
      expect(ms[3]!.value).to.deep.equal({ type: 'distribution', samples: [{ value: 1, rate: 3 }, { value: 2, rate: 4 }], statistic: 'summary' });
      expect(ms[4]!.value).to.deep.equal({ type: 'distribution', samples: [{ value: 1, rate: 1 }], statistic: 'histogram' });
      expect(ms[5]!.value).to.deep.equal({ type: 'aggregated_histogram', buckets: [{ upper_limit: 1, count: 5 }, { upper_limit: 2, count: 6 }], count: 11, sum: 3.5 });
      expect(ms[6]!.value).to.deep.equal({ type: 'aggregated_histogram', buckets: [{ upper_limit: 1, count: 5 }], count: 5, sum: 1 });
      expect(ms[7]!.value).to.deep.equal({ type: 'aggregated_histogram', buckets: [{ upper_limit: 1, count: 9_000_000_000 }], count: 9_000_000_000, sum: 1 });
      expect(ms[8]!.value).to.deep.equal({ type: 'aggregated_summary', quantiles: [{ quantile: 0.5, value: 1 }, { quantile: 0.9, value: 2 }], count: 3, sum: 4 });
      expect(ms[9]!.value).to.deep.equal({ type: 'aggregated_summary', quantiles: [{ quantile: 0.5, value: 1 }], count: 3, sum: 4 });
      expect(ms[10]!.value).to.deep.equal({ type: 'aggregated_summary', quantiles: [{ quantile: 0.5, value: 1 }], count: 3, sum: 4 });
    });

    it('bytes that are not a PushEventsRequest throw', () => {
      expect(() => decodePushEvents(Buffer.from([0x0a, 0x05, 0x0a]), RAW, NOW)).to.throw(/past the end/);
    });
  });

  describe('weir → weir', () => {
    it('keeps every value kind exactly (integer and float stay apart)', () => {
      const src = new LogEvent({ ...EVERY_VALUE, timestamp: NOW, source_type: 'demo' }, meta({ m: new Float(1) }, new Map([['s', 'v']])));
      const [out] = decodePushEvents(encodeAll([src]), SHAPE, new Timestamp(0)).events as LogEvent[];
      expect(valueEquals(out!.fields, src.fields), JSON.stringify(out!.fields)).to.equal(true);
      expect(Object.keys(out!.fields)).to.deep.equal(Object.keys(src.fields));
      expect(valueEquals(out!.meta.value!, { m: new Float(1) })).to.equal(true);
      expect([...out!.meta.secrets!]).to.deep.equal([['s', 'v']]);
    });

    it('keeps every metric kind, kind, tags, namespace, timestamp and interval', () => {
      const ts = new Timestamp(1_700_000_000_999, 999_999);
      const values: MetricValue[] = [
        { type: 'counter', value: 1.25 },
        { type: 'gauge', value: -3 },
        { type: 'set', values: ['a', ''] },
        { type: 'distribution', samples: [{ value: 0.5, rate: 1 }, { value: 2, rate: 3 }], statistic: 'histogram' },
        { type: 'distribution', samples: [{ value: 1, rate: 1 }], statistic: 'summary' },
        { type: 'aggregated_histogram', buckets: [{ upper_limit: 0.1, count: 1 }, { upper_limit: Infinity, count: 2 }], count: 3, sum: 0.4 },
        { type: 'aggregated_summary', quantiles: [{ quantile: 0.99, value: 7 }], count: 10, sum: 20 },
      ];
      const src = values.map((value, i) => new MetricEvent(`m${i}`, i % 2 ? 'incremental' : 'absolute', value, meta(), i % 3 ? 'ns' : undefined, { one: 'x', bare: null, many: ['p', null, 'q'] }, ts, i % 2 ? undefined : 15_000));
      const out = decodePushEvents(encodeAll(src), SHAPE, NOW).events as MetricEvent[];
      expect(out).to.have.length(values.length);
      out.forEach((m, i) => {
        const s = src[i]!;
        expect({ name: m.name, kind: m.kind, value: m.value, namespace: m.namespace, tags: m.tags, intervalMs: m.intervalMs }).to.deep.equal({
          name: s.name,
          kind: s.kind,
          value: s.value,
          namespace: s.namespace,
          tags: s.tags,
          intervalMs: s.intervalMs,
        });
        expect(m.timestamp!.equals(ts)).to.equal(true);
      });
    });
  });
});
