import { expect } from 'chai';
import protobuf from 'protobufjs';
import {
  DecodeError,
  type Stamp,
  createBatchEncoder,
  createDeserializer,
  createSerializer,
  defaultDecodingFraming,
  defaultStreamFraming,
  streamDecoderFactory,
} from '../../../lib/codecs/index.js';
import { type Event, EventMetadata, LogEvent, MetricEvent, eventSize, logEvent } from '../../../lib/event.js';
import { Float, type ObjectValue, Timestamp, type Value, valueEquals } from '../../../lib/value.js';
import { testSourceContext } from '../../connectors/sources/source-context.js';
import { LOG_LINE, METRIC_LINES } from '../../helpers/native-lines.js';

const NOW = new Timestamp(Date.UTC(2024, 4, 1, 12, 0, 0));
const stamp = (): Stamp => ({ timestamp: NOW, host: 'peer', port: undefined });
const decoder = (codec: 'native_json' | 'native') => createDeserializer({ codec }, { sourceId: 'in', sourceType: 'stdin' });
const decodeAll = (codec: 'native_json' | 'native', frame: Buffer): Event[] => {
  const out: Event[] = [];
  decoder(codec).decode(frame, 0, frame.length, stamp(), out);
  return out;
};
const fromJson = (line: string) => decodeAll('native_json', Buffer.from(line));
const toJson = createSerializer({ codec: 'native_json' });
const toProto = createSerializer({ codec: 'native' });

describe('lib/codecs native_json and native', () => {
  describe('native_json', () => {
    it('every metric kind round-trips text -> event -> text exactly', () => {
      for (const line of METRIC_LINES) {
        const events = fromJson(line);
        expect(events, line).to.have.length(1);
        expect(toJson.serializeText(events[0]!), line).to.equal(line);
      }
    });

    it('metric fields land where the event model keeps them', () => {
      const [c] = fromJson(METRIC_LINES[0]!) as MetricEvent[];
      expect(c).to.be.instanceOf(MetricEvent);
      expect(c!.name).to.equal('requests');
      expect(c!.namespace).to.equal('web');
      expect(c!.kind).to.equal('incremental');
      expect(c!.value).to.deep.equal({ type: 'counter', value: 3 });
      expect(c!.tags).to.deep.equal({ code: ['200', 'ok'], host: 'a', bare: null, empty: [], with_bare: ['x', null] });
      expect(c!.timestamp!.equals(Timestamp.parse('2024-05-01T12:00:00.123456789Z')!)).to.equal(true);
      expect(c!.intervalMs).to.equal(10000);
      expect(c!.meta.sourceId).to.equal('in');
      const [h] = fromJson(METRIC_LINES[5]!) as MetricEvent[];
      expect(h!.value).to.deep.equal({
        type: 'aggregated_histogram',
        buckets: [
          { upper_limit: 0.005, count: 1 },
          { upper_limit: 1, count: 4 },
          { upper_limit: Infinity, count: 7 },
        ],
        count: 7,
        sum: 12.75,
      });
      const [d] = fromJson(METRIC_LINES[4]!) as MetricEvent[];
      expect(d!.value).to.deep.equal({ type: 'distribution', samples: [{ value: 0.25, rate: 1 }], statistic: 'summary' });
      // metrics are not given log fields
      expect(d!.tags).to.equal(undefined);
      expect(d!.timestamp).to.equal(undefined);
    });

    it('a log with every value kind round-trips exactly, each value keeping its kind', () => {
      const [e] = fromJson(LOG_LINE) as LogEvent[];
      const f = e!.fields;
      expect(f.message).to.equal('héllo "world"\n');
      expect(f.count).to.equal(42);
      expect(f.negative).to.equal(-7);
      expect(f.ratio).to.deep.equal(new Float(0.25));
      expect(f.whole_float).to.deep.equal(new Float(2));
      expect(f.big_float).to.deep.equal(new Float(1e21));
      expect([f.ok, f.no, f.nothing]).to.deep.equal([true, false, null]);
      expect(valueEquals(f.nested!, { a: { b: [1, new Float(2.5), 'x', null, { c: false }] }, empty: {} })).to.equal(true);
      expect(f.list).to.deep.equal([]);
      // a log timestamp is a string in this format (Vector reads it back as one too)
      expect(f.timestamp).to.equal('2024-05-01T12:00:00.000001Z');
      expect(toJson.serializeText(e!)).to.equal(LOG_LINE);
    });

    it('writes timestamps and integral floats of events made elsewhere so they read back as the same kinds', () => {
      const ts = new Timestamp(Date.UTC(2024, 0, 2, 3, 4, 5), 678_900);
      const e = logEvent({ at: ts, f: new Float(3), n: 3, neg: new Float(-0), nan: new Float(NaN), re: /a+b/ });
      const line = toJson.serializeText(e);
      expect(line).to.equal('{"log":{"at":"2024-01-02T03:04:05.000678900Z","f":3.0,"n":3,"neg":-0.0,"nan":null,"re":"a+b"}}');
      const [back] = fromJson(line) as LogEvent[];
      expect(back!.fields.f).to.deep.equal(new Float(3));
      expect(back!.fields.n).to.equal(3);
      expect(Object.is((back!.fields.neg as Float).value, -0)).to.equal(true);
    });

    it('exponent literals are floats even on the fast path; a key named __proto__ stays an own field', () => {
      const [e] = fromJson('{"log":{"a":1e3,"b":1E-2,"__proto__":{"x":1}}}') as LogEvent[];
      expect(e!.fields.a).to.deep.equal(new Float(1000));
      expect(e!.fields.b).to.deep.equal(new Float(0.01));
      expect(Object.getPrototypeOf(e!.fields)).to.equal(Object.prototype);
      expect(Object.keys(e!.fields)).to.include('__proto__');
    });

    it('number-like text inside strings changes no kinds, with or without an integral float elsewhere', () => {
      const strings = { ip: '10.0.0.5', version: '1.0', id: '3e4f', quoted: '"2.0' };
      const [a] = fromJson('{"log":{"ip":"10.0.0.5","version":"1.0","id":"3e4f","quoted":"\\"2.0","n":3,"f":2.5}}') as LogEvent[];
      expect(a!.fields).to.deep.include({ ...strings, n: 3 });
      expect(a!.fields.f).to.deep.equal(new Float(2.5));
      const [b] = fromJson('{"log":{"ip":"10.0.0.5","version":"1.0","id":"3e4f","quoted":"\\"2.0","n":3,"f":4.0}}') as LogEvent[];
      expect(b!.fields).to.deep.include({ ...strings, n: 3 });
      expect(b!.fields.f).to.deep.equal(new Float(4));
    });

    it('a frame may hold an array of events; an empty frame holds none', () => {
      const events = fromJson(`[${LOG_LINE},${METRIC_LINES[1]}]`);
      expect(events.map((e) => e.type)).to.deep.equal(['log', 'metric']);
      expect(fromJson('')).to.deep.equal([]);
      expect(fromJson('[]')).to.deep.equal([]);
    });

    it("adds the source's timestamp, host and source_type to logs that lack them, never to metrics", () => {
      const [log, metric] = fromJson('[{"log":{"message":"m"}},' + METRIC_LINES[2] + ']');
      expect((log as LogEvent).fields).to.deep.equal({ message: 'm', timestamp: NOW, host: 'peer', source_type: 'stdin' });
      expect(toJson.serializeText(metric!)).to.equal(METRIC_LINES[2]);
    });

    it('a log whose root is not an object is kept under the message key', () => {
      const [e] = fromJson('{"log":"just text"}') as LogEvent[];
      expect(e!.fields.message).to.equal('just text');
    });

    it('tag sets follow Vector: a repeated value moves to the end, a set of one is a plain tag', () => {
      const [m] = fromJson('{"metric":{"name":"n","tags":{"a":["x","y","x"],"b":["only"]},"kind":"absolute","gauge":{"value":1}}}') as MetricEvent[];
      expect(m!.tags).to.deep.equal({ a: ['y', 'x'], b: 'only' });
      expect(m!.value).to.deep.equal({ type: 'gauge', value: 1 });
    });

    it('writes full tag sets whatever metric_tag_values says (that option is for json and text)', () => {
      const single = createSerializer({ codec: 'native_json', metric_tag_values: 'single' });
      const [m] = fromJson(METRIC_LINES[0]!);
      expect(single.serializeText(m!)).to.equal(METRIC_LINES[0]);
    });

    it('returns the same size estimate as eventSize', () => {
      const out: Event[] = [];
      const buf = Buffer.from(`[${LOG_LINE},${METRIC_LINES[0]}]`);
      const size = decoder('native_json').decode(buf, 0, buf.length, stamp(), out);
      expect(size).to.equal(eventSize(out[0]!) + eventSize(out[1]!));
    });

    const malformed: [string, string][] = [
      ['not json', 'invalid native_json frame'],
      ['{"log":{"a":1}', 'invalid native_json frame'],
      ['{"log":{"a":1}} trailing', 'invalid native_json frame'],
      ['{"a":1}', 'one key, log or metric'],
      ['{}', 'an empty object'],
      ['{"log":{},"metric":{}}', 'exactly one key'],
      ['"text"', 'one key'],
      ['{"trace":{"span_id":"x"}}', 'trace events are not supported'],
      ['{"metric":{"name":"n","kind":"absolute"}}', 'metric has no value'],
      ['{"metric":{"name":"n","kind":"absolute","counter":{"value":1.0},"gauge":{"value":1.0}}}', 'metric has two values'],
      ['{"metric":{"name":"n","kind":"sideways","counter":{"value":1.0}}}', 'metric.kind'],
      ['{"metric":{"kind":"absolute","counter":{"value":1.0}}}', 'metric.name'],
      ['{"metric":{"name":"n","kind":"absolute","counter":{"value":"1"}}}', 'metric.counter.value must be a number'],
      ['{"metric":{"name":"n","kind":"absolute","timestamp":"yesterday","counter":{"value":1.0}}}', 'metric.timestamp'],
      ['{"metric":{"name":"n","kind":"absolute","interval_ms":0,"counter":{"value":1.0}}}', 'interval_ms'],
      ['{"metric":{"name":"n","kind":"absolute","tags":{"a":1},"counter":{"value":1.0}}}', 'metric.tags.a'],
      ['{"metric":{"name":"n","kind":"absolute","set":{"values":[1]}}}', 'metric.set.values'],
      ['{"metric":{"name":"n","kind":"absolute","distribution":{"samples":[{"value":1.0,"rate":-1}],"statistic":"histogram"}}}', 'rate'],
      ['{"metric":{"name":"n","kind":"absolute","distribution":{"samples":[],"statistic":"mean"}}}', 'statistic'],
      ['{"metric":{"name":"n","kind":"absolute","aggregated_histogram":{"buckets":[{"upper_limit":"huge","count":1}],"count":1,"sum":1.0}}}', 'upper_limit'],
      ['{"metric":{"name":"n","kind":"absolute","sketch":{"sketch":{"AgentDDSketch":{}}}}}', 'sketch metrics are not supported'],
      ['{"log":' + '['.repeat(200) + ']'.repeat(200) + '}', 'nesting deeper than 128'],
    ];
    for (const [frame, message] of malformed) {
      it(`rejects ${frame.length > 60 ? frame.slice(0, 60) + '…' : frame} (DecodeError, no events)`, () => {
        const out: Event[] = [];
        const buf = Buffer.from(frame);
        expect(() => decoder('native_json').decode(buf, 0, buf.length, stamp(), out))
          .to.throw(DecodeError)
          .with.property('message')
          .that.contains(message);
        expect(out).to.deep.equal([]);
      });
    }

    it('an array with one bad element fails the whole frame and adds no events', () => {
      const out: Event[] = [logEvent({ before: 1 })];
      const buf = Buffer.from(`[${LOG_LINE},{"metric":{"name":"n"}}]`);
      expect(() => decoder('native_json').decode(buf, 0, buf.length, stamp(), out)).to.throw(DecodeError);
      expect(out).to.have.length(1);
    });
  });

  describe('native (protobuf)', () => {
    const metadata = () => new EventMetadata('src', 'demo');
    const richFields = (): ObjectValue => ({
      message: 'héllo',
      count: 42,
      negative: -7,
      max: 9007199254740991,
      ratio: new Float(0.25),
      whole_float: new Float(2),
      ok: true,
      no: false,
      nothing: null,
      at: new Timestamp(Date.UTC(2024, 4, 1, 12, 0, 0, 123), 456_789),
      before_epoch: new Timestamp(-1500, 250_000),
      nested: { a: { b: [1, new Float(2.5), 'x', null, { c: false }] }, empty: {} },
      list: [],
      // the source's fields are already there, so decoding adds none
      timestamp: NOW,
      host: 'peer',
      source_type: 'stdin',
    });

    it('a log with every value kind round-trips event -> bytes -> event -> bytes exactly, timestamps as timestamps', () => {
      const e = new LogEvent(richFields(), metadata());
      const bytes = toProto.serialize(e);
      const [back] = decodeAll('native', bytes) as LogEvent[];
      expect(valueEquals(back!.fields, richFields())).to.equal(true);
      expect(back!.fields.at).to.be.instanceOf(Timestamp);
      expect((back!.fields.before_epoch as Timestamp).equals(new Timestamp(-1500, 250_000))).to.equal(true);
      expect(back!.fields.whole_float).to.deep.equal(new Float(2));
      expect(Object.keys(back!.fields)).to.deep.equal(Object.keys(richFields()));
      expect(toProto.serialize(back!).equals(bytes)).to.equal(true);
    });

    it('every metric kind round-trips event -> bytes -> event -> bytes exactly', () => {
      for (const line of METRIC_LINES) {
        const [m] = fromJson(line) as MetricEvent[];
        const bytes = toProto.serialize(m!);
        const back = decodeAll('native', bytes) as MetricEvent[];
        expect(back, line).to.have.length(1);
        const b = back[0]!;
        expect([b.name, b.namespace, b.kind, b.intervalMs], line).to.deep.equal([m!.name, m!.namespace, m!.kind, m!.intervalMs]);
        expect(b.tags, line).to.deep.equal(m!.tags);
        expect(b.value, line).to.deep.equal(m!.value);
        expect(String(b.timestamp), line).to.equal(String(m!.timestamp));
        expect(toProto.serialize(b).equals(bytes), line).to.equal(true);
        // and the two formats agree
        expect(toJson.serializeText(b), line).to.equal(line);
      }
    });

    it('writes the wire layout of Vector\'s event.proto (field numbers checked byte by byte)', () => {
      const counter = new MetricEvent('c', 'absolute', { type: 'counter', value: 1 }, metadata());
      // EventArray.metrics(2) > MetricArray.metrics(1) > Metric{name(1)="c", kind(4)=Absolute, counter(5){value(1)=1.0}}
      expect(toProto.serialize(counter).toString('hex')).to.equal('1212' + '0a10' + '0a0163' + '2001' + '2a09' + '09000000000000f03f');
      // EventArray.logs(1) > LogArray.logs(1) > Log.fields(1) map entries {key(1), value(2)}: raw_bytes(1), null(9)
      expect(toProto.serialize(logEvent({ a: 'x', n: null })).toString('hex')).to.equal('0a15' + '0a13' + '0a080a0161' + '12030a0178' + '0a070a016e' + '12024800');
    });

    it('reads what older writers send: tags_v1 only, Distribution1, AggregatedHistogram1, AggregatedSummary1, Log.value', () => {
      // built with the bare wire writer, independent of weir's schema
      const metricFrame = (body: (w: protobuf.Writer) => void) => {
        const m = protobuf.Writer.create();
        body(m);
        const metric = m.finish();
        const arr = protobuf.Writer.create().uint32((1 << 3) | 2).bytes(metric).finish();
        return Buffer.from(protobuf.Writer.create().uint32((2 << 3) | 2).bytes(arr).finish());
      };
      const name = (w: protobuf.Writer, n: string) => w.uint32((1 << 3) | 2).string(n);
      const tagV1 = (w: protobuf.Writer, k: string, v: string) => {
        const entry = protobuf.Writer.create().uint32((1 << 3) | 2).string(k).uint32((2 << 3) | 2).string(v).finish();
        w.uint32((3 << 3) | 2).bytes(entry);
      };
      const packedDoubles = (xs: number[]) => {
        const w = protobuf.Writer.create();
        for (const x of xs) w.double(x);
        return w.finish();
      };
      const packedU32 = (xs: number[]) => {
        const w = protobuf.Writer.create();
        for (const x of xs) w.uint32(x);
        return w.finish();
      };

      const dist = metricFrame((w) => {
        name(w, 'd');
        tagV1(w, 'host', 'a');
        // Distribution1(8){values(1) packed, sample_rates(2) packed, statistic(3)=Summary}
        const body = protobuf.Writer.create().uint32((1 << 3) | 2).bytes(packedDoubles([1.5, 2])).uint32((2 << 3) | 2).bytes(packedU32([3, 4])).uint32(3 << 3).uint32(1).finish();
        w.uint32((8 << 3) | 2).bytes(body);
      });
      const [d] = decodeAll('native', dist) as MetricEvent[];
      expect(d!.tags).to.deep.equal({ host: 'a' });
      expect(d!.kind).to.equal('incremental');
      expect(d!.value).to.deep.equal({ type: 'distribution', samples: [{ value: 1.5, rate: 3 }, { value: 2, rate: 4 }], statistic: 'summary' });

      const hist = metricFrame((w) => {
        name(w, 'h');
        // AggregatedHistogram1(9){buckets(1), counts(2), count(3), sum(4)}
        const body = protobuf.Writer.create().uint32((1 << 3) | 2).bytes(packedDoubles([1, Infinity])).uint32((2 << 3) | 2).bytes(packedU32([2, 5])).uint32(3 << 3).uint32(5).uint32((4 << 3) | 1).double(9.5).finish();
        w.uint32((9 << 3) | 2).bytes(body);
        w.uint32(4 << 3).uint32(1);
      });
      expect((decodeAll('native', hist)[0] as MetricEvent).value).to.deep.equal({
        type: 'aggregated_histogram',
        buckets: [
          { upper_limit: 1, count: 2 },
          { upper_limit: Infinity, count: 5 },
        ],
        count: 5,
        sum: 9.5,
      });

      const summary = metricFrame((w) => {
        name(w, 's');
        // AggregatedSummary1(10){quantiles(1), values(2), count(3), sum(4)}
        const body = protobuf.Writer.create().uint32((1 << 3) | 2).bytes(packedDoubles([0.5])).uint32((2 << 3) | 2).bytes(packedDoubles([7])).uint32(3 << 3).uint32(2).uint32((4 << 3) | 1).double(14).finish();
        w.uint32((10 << 3) | 2).bytes(body);
      });
      expect((decodeAll('native', summary)[0] as MetricEvent).value).to.deep.equal({ type: 'aggregated_summary', quantiles: [{ quantile: 0.5, value: 7 }], count: 2, sum: 14 });

      // Log.value(2) holding a bare string: kept under the message key
      const value = protobuf.Writer.create().uint32((1 << 3) | 2).string('plain').finish();
      const log = protobuf.Writer.create().uint32((2 << 3) | 2).bytes(value).finish();
      const logs = protobuf.Writer.create().uint32((1 << 3) | 2).bytes(log).finish();
      const frame = Buffer.from(protobuf.Writer.create().uint32((1 << 3) | 2).bytes(logs).finish());
      expect((decodeAll('native', frame)[0] as LogEvent).fields).to.deep.equal({ message: 'plain', timestamp: NOW, host: 'peer', source_type: 'stdin' });
    });

    it('tags_v2 carries the full sets; tags_v1 (the single value) does not reorder them', () => {
      const m = new MetricEvent('t', 'absolute', { type: 'gauge', value: 1 }, metadata(), undefined, { code: ['200', 'ok', null], bare: null, one: 'x' });
      const [back] = decodeAll('native', toProto.serialize(m)) as MetricEvent[];
      expect(back!.tags).to.deep.equal({ code: ['200', 'ok', null], bare: null, one: 'x' });
    });

    it('the % metadata of an event travels with it', () => {
      const e = logEvent({ a: 1 });
      e.meta.value = { origin: { id: 7 } };
      const [back] = decodeAll('native', toProto.serialize(e)) as LogEvent[];
      expect(back!.meta.value).to.deep.equal({ origin: { id: 7 } });
      expect(back!.meta.sourceId).to.equal('in');
    });

    it('several events in one EventArray are all decoded; an empty frame holds none', () => {
      const a = protobuf.Writer.create();
      for (const msg of ['one', 'two']) {
        const v = protobuf.Writer.create().uint32((1 << 3) | 2).bytes(Buffer.from(msg)).finish();
        const entry = protobuf.Writer.create().uint32((1 << 3) | 2).string('message').uint32((2 << 3) | 2).bytes(v).finish();
        const log = protobuf.Writer.create().uint32((1 << 3) | 2).bytes(entry).finish();
        a.uint32((1 << 3) | 2).bytes(log);
      }
      const frame = Buffer.from(protobuf.Writer.create().uint32((1 << 3) | 2).bytes(a.finish()).finish());
      expect(decodeAll('native', frame).map((e) => (e as LogEvent).fields.message)).to.deep.equal(['one', 'two']);
      expect(decodeAll('native', Buffer.alloc(0))).to.deep.equal([]);
    });

    it('integers and counts at the edges of int64 / uint64 saturate instead of wrapping around', () => {
      const e = logEvent({ big: 2 ** 63, small: -(2 ** 64) });
      const [back] = decodeAll('native', toProto.serialize(e)) as LogEvent[];
      expect(back!.fields.big).to.equal(2 ** 63);
      expect(back!.fields.small).to.equal(-(2 ** 63));
      const h = new MetricEvent('h', 'absolute', { type: 'aggregated_histogram', buckets: [{ upper_limit: 1, count: 2 ** 64 }], count: 2 ** 64, sum: 1 }, metadata());
      const [hb] = decodeAll('native', toProto.serialize(h)) as MetricEvent[];
      expect(hb!.value).to.deep.equal({ type: 'aggregated_histogram', buckets: [{ upper_limit: 1, count: 2 ** 64 }], count: 2 ** 64, sum: 1 });
    });

    const badFrames: [string, Buffer, string][] = [
      ['garbage', Buffer.from('ffffffffff', 'hex'), 'invalid native frame'],
      ['a truncated message', toProto.serialize(logEvent({ message: 'hello there' })).subarray(0, 12), 'invalid native frame'],
      ['JSON text', Buffer.from(METRIC_LINES[1]!), 'invalid native frame'],
      // only an unknown field (5, varint): no logs, metrics or traces
      ['an EventArray without events', Buffer.from('2800', 'hex'), 'EventArray holds no events'],
      ['a metric without a value', Buffer.from('1205' + '0a03' + '0a0163', 'hex'), 'metric has no value'],
      ['a sketch', Buffer.from('1207' + '0a05' + '0a0163' + '7a00', 'hex'), 'sketch metrics are not supported'],
      ['a trace', Buffer.from('1a02' + '0a00', 'hex'), 'trace events are not supported'],
      ['a value without a kind', Buffer.from('0a09' + '0a07' + '0a050a0161' + '1200', 'hex'), 'a value has no kind'],
    ];
    for (const [name, frame, message] of badFrames) {
      it(`rejects ${name} (DecodeError, no events)`, () => {
        const out: Event[] = [];
        expect(() => decoder('native').decode(frame, 0, frame.length, stamp(), out))
          .to.throw(DecodeError)
          .with.property('message')
          .that.contains(message);
        expect(out).to.deep.equal([]);
      });
    }
  });

  describe('in a stream', () => {
    it('default framing: length-delimited for native, newline-delimited for native_json (both ways)', () => {
      expect(defaultDecodingFraming('native')).to.deep.equal({ method: 'length_delimited' });
      expect(defaultDecodingFraming('native_json')).to.deep.equal({ method: 'newline_delimited' });
      expect(defaultStreamFraming('native')).to.deep.equal({ method: 'length_delimited' });
      expect(defaultStreamFraming('native_json')).to.deep.equal({ method: 'newline_delimited' });
    });

    it('a native sink batch is u32 big-endian length-prefixed EventArrays that a native source decodes', () => {
      const events: Event[] = [new LogEvent(richFieldsForStream(), new EventMetadata('a', 'b')), ...METRIC_LINES.flatMap(fromJson)];
      const encoder = createBatchEncoder({ codec: 'native' }, {});
      expect(encoder.serializer.contentType).to.equal('application/octet-stream');
      const { bytes, encoded, failed } = encoder.encode(events);
      expect([encoded.length, failed.length]).to.deep.equal([events.length, 0]);
      // the first frame's prefix is the length of the first event's EventArray
      expect(bytes.readUInt32BE(0)).to.equal(toProto.serialize(events[0]!).length);
      const ctx = testSourceContext('stdin');
      const stream = streamDecoderFactory(ctx, { framing: defaultDecodingFraming('native'), decoding: { codec: 'native' }, sourceType: 'stdin' })();
      // split mid-frame: frames are reassembled across chunks
      const got = [...stream.push(bytes.subarray(0, 7)), ...stream.push(bytes.subarray(7)), ...stream.end()];
      expect(got.map((e) => toJson.serializeText(e))).to.deep.equal(events.map((e) => toJson.serializeText(e)));
      expect(ctx.metric('component_errors_total')).to.equal(0);
    });

    it('native_json: malformed lines are counted in component_errors_total and skipped; the good ones decode', () => {
      const ctx = testSourceContext('stdin');
      const stream = streamDecoderFactory(ctx, { framing: defaultDecodingFraming('native_json'), decoding: { codec: 'native_json' }, sourceType: 'stdin' })();
      const input = [METRIC_LINES[0], '{"metric":{"name":"broken"}}', 'not json at all', LOG_LINE, '{"trace":{}}', METRIC_LINES[6]].join('\n') + '\n';
      const got = [...stream.push(Buffer.from(input)), ...stream.end()];
      expect(got.map((e) => toJson.serializeText(e))).to.deep.equal([METRIC_LINES[0], LOG_LINE, METRIC_LINES[6]]);
      expect(ctx.metric('component_errors_total', { error_code: 'decoder_deserialize', error_type: 'parser_failed', stage: 'processing' })).to.equal(3);
    });

    it('native: a bad frame between good ones is counted and skipped', () => {
      const ctx = testSourceContext('stdin');
      const stream = streamDecoderFactory(ctx, { framing: defaultDecodingFraming('native'), decoding: { codec: 'native' }, sourceType: 'stdin' })();
      const frame = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
      const good = toProto.serialize(fromJson(METRIC_LINES[1]!)[0]!);
      const got = stream.push(Buffer.concat([frame(good), frame(Buffer.from('ffff', 'hex')), frame(good)]));
      expect(got).to.have.length(2);
      expect(ctx.metric('component_errors_total', { error_code: 'decoder_deserialize' })).to.equal(1);
    });
  });
});

function richFieldsForStream(): ObjectValue {
  const nested: Value = { list: [1, new Float(1), 'one', null, true], at: new Timestamp(1_700_000_000_000, 1) };
  return { message: 'streamed', nested, timestamp: NOW, host: 'h', source_type: 'stdin' };
}
