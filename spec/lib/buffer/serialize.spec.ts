import { expect } from 'chai';
import fc from 'fast-check';
import { type Event, EventMetadata, LogEvent, MetricEvent } from '../../../lib/event.js';
import { Float, type ObjectValue, Timestamp, type Value, valueEquals } from '../../../lib/value.js';
import { diskV2Format } from '../../../lib/buffer/disk.js';
import { diskV1Format } from '../../../lib/buffer/disk-v1.js';
import { DecodeError } from '../../../lib/buffer/serialize.js';

export { same };

/** Arbitrary values of the whole model: ints vs floats, ns timestamps, regexes, nesting, odd keys. */
const valueArb: fc.Arbitrary<Value> = fc.letrec<{ value: Value; object: ObjectValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.maxSafeInteger(),
    fc.double().map((d) => new Float(d)),
    fc.oneof(fc.double({ noInteger: true }), fc.constant(1e300), fc.constant(-0), fc.constant(NaN)),
    fc.string({ unit: 'grapheme' }),
    fc.string({ minLength: 50, maxLength: 6000 }),
    fc.tuple(fc.integer({ min: -8.64e15, max: 8.64e15 }), fc.integer({ min: 0, max: 999_999 })).map(([ms, ns]) => new Timestamp(ms, ns)),
    fc.constantFrom(/a+b/gi, /^x$/m, /é\d/u),
    fc.array(tie('value'), { maxLength: 4 }),
    tie('object'),
  ),
  object: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('$f', '$t', '$o', '__proto__', '')), tie('value'), { maxKeys: 5 }),
})).value;

const objectArb = fc.dictionary(fc.string(), valueArb, { maxKeys: 6 });

const metaArb = fc
  .tuple(fc.constantFrom('in', 'other', ''), fc.constantFrom('demo_logs', 'http_server'), fc.option(objectArb, { nil: undefined }))
  .map(([id, type, value]) => new EventMetadata(id, type, undefined, value));

const metricArb = fc
  .tuple(
    fc.string(),
    fc.constantFrom('absolute', 'incremental' as const),
    fc.oneof(
      fc.double().map((value) => ({ type: 'counter' as const, value })),
      fc.double().map((value) => ({ type: 'gauge' as const, value })),
      fc.array(fc.string()).map((values) => ({ type: 'set' as const, values })),
      fc
        .array(fc.record({ value: fc.double(), rate: fc.nat() }))
        .map((samples) => ({ type: 'distribution' as const, samples, statistic: 'summary' as const })),
      fc
        .array(fc.record({ upper_limit: fc.double(), count: fc.nat() }))
        .map((buckets) => ({ type: 'aggregated_histogram' as const, buckets, count: 3, sum: 1.5 })),
      fc
        .array(fc.record({ quantile: fc.double(), value: fc.double() }))
        .map((quantiles) => ({ type: 'aggregated_summary' as const, quantiles, count: 7, sum: 2 })),
    ),
    fc.option(fc.string(), { nil: undefined }),
    fc.option(fc.dictionary(fc.string(), fc.oneof(fc.constant(null), fc.string(), fc.array(fc.option(fc.string(), { nil: null })))), { nil: undefined }),
    fc.option(fc.integer({ min: 0, max: 2e12 }).map((ms) => new Timestamp(ms, 123_456)), { nil: undefined }),
    fc.option(fc.nat(), { nil: undefined }),
    metaArb,
  )
  .map(([name, kind, value, ns, tags, ts, interval, meta]) => new MetricEvent(name, kind, value, meta, ns, tags, ts, interval));

const eventArb: fc.Arbitrary<Event> = fc.oneof(
  fc.tuple(objectArb, metaArb).map(([fields, meta]) => new LogEvent(fields, meta)),
  metricArb,
);

/** Strict structural equality: kinds, Object.is on numbers (NaN equal, -0 distinct), key order. */
function same(a: Value, b: Value): boolean {
  if (typeof a === 'number') return typeof b === 'number' && Object.is(a, b);
  if (a instanceof Float) return b instanceof Float && Object.is(a.value, b.value);
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]!));
  if (a !== null && typeof a === 'object' && !(a instanceof Timestamp) && !(a instanceof RegExp)) {
    if (b === null || typeof b !== 'object' || Array.isArray(b) || b instanceof Float || b instanceof Timestamp || b instanceof RegExp) return false;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k, i) => k === kb[i] && same(a[k]!, b[k]!));
  }
  return valueEquals(a, b);
}

/** Compares everything the buffer promises to keep (not notifiers). */
function expectSameEvent(a: Event, b: Event): void {
  expect(a.type).to.equal(b.type);
  expect(a.meta.sourceId).to.equal(b.meta.sourceId);
  expect(a.meta.sourceType).to.equal(b.meta.sourceType);
  if (a.meta.value === undefined) expect(b.meta.value).to.equal(undefined);
  else expect(same(a.meta.value, b.meta.value!), 'metadata').to.equal(true);
  if (a.type === 'log') {
    expect(same(a.fields, (b as LogEvent).fields), 'fields').to.equal(true);
    return;
  }
  const m = b as MetricEvent;
  expect([m.name, m.kind, m.namespace, m.intervalMs]).to.deep.equal([a.name, a.kind, a.namespace, a.intervalMs]);
  expect(m.value).to.deep.equal(a.value);
  expect(m.tags).to.deep.equal(a.tags);
  expect(m.timestamp?.toNanos()).to.equal(a.timestamp?.toNanos());
}

function roundTrip(format: typeof diskV2Format, events: Event[]): Event[] {
  const b = format.createBuilder();
  const out: Event[] = [];
  for (const e of events) {
    b.append(e);
    if (b.count >= format.maxEvents) out.push(...format.decode(b.seal()));
  }
  if (b.count > 0) out.push(...format.decode(b.seal()));
  return out;
}

for (const format of [diskV2Format, diskV1Format]) {
  describe(`buffer record format v${format.version}`, () => {
    it('round-trips every value kind, metrics and metadata losslessly', () => {
      fc.assert(
        fc.property(fc.array(eventArb, { minLength: 1, maxLength: 8 }), (events) => {
          const back = roundTrip(format, events);
          expect(back).to.have.length(events.length);
          events.forEach((e, i) => expectSameEvent(e, back[i]!));
        }),
        { numRuns: 300 },
      );
    });

    it('keeps 1 and 1.0 apart, timestamps to the nanosecond, and -0 / NaN', () => {
      const fields: ObjectValue = {
        int: 1,
        float: new Float(1),
        big: 2 ** 53 + 2,
        neg: -42,
        nan: new Float(NaN),
        inf: new Float(-Infinity),
        ts: new Timestamp(1_700_000_000_123, 456_789),
        nested: { a: [null, true, 'x', { $f: 2 }] },
      };
      const [back] = roundTrip(format, [new LogEvent(fields, new EventMetadata('in', 'demo_logs'))]) as [LogEvent];
      expect(back.fields.int).to.equal(1);
      expect(back.fields.float).to.be.instanceOf(Float);
      expect(back.fields.big).to.equal(2 ** 53 + 2);
      expect(back.fields.neg).to.equal(-42);
      expect((back.fields.nan as Float).value).to.be.NaN;
      expect((back.fields.inf as Float).value).to.equal(-Infinity);
      expect((back.fields.ts as Timestamp).toString()).to.equal('2023-11-14T22:13:20.123456789Z');
      expect(valueEquals(back.fields.nested!, fields.nested!)).to.equal(true);
    });

    it('fails to decode damaged bytes with a DecodeError, never returning wrong events', () => {
      const e = new LogEvent({ message: 'hello world', n: 7 }, new EventMetadata('in', 'demo_logs'));
      const b = format.createBuilder();
      b.append(e);
      const rec = b.seal();
      for (let i = 0; i < rec.length; i++) {
        const bad = Buffer.from(rec);
        bad[i] = bad[i]! ^ 0xff;
        let decoded: Event[] | undefined;
        try {
          decoded = format.decode(bad);
        } catch (err) {
          expect(err, `byte ${i}`).to.be.instanceOf(DecodeError);
          continue;
        }
        // v1 JSON has no checksum: a flipped byte inside a string may still parse, into a different event
        expect(format.version, `byte ${i} decoded`).to.equal(1);
        expect(decoded).to.have.length(1);
      }
      expect(() => format.decode(rec.subarray(0, rec.length - 1))).to.throw(DecodeError);
    });
  });
}

describe('buffer record format v2 size', () => {
  it('stores a ~200-byte log line in well under 300 bytes, source ids once per record', () => {
    const b = diskV2Format.createBuilder();
    const line = 'x'.repeat(150);
    for (let i = 0; i < 100; i++)
      b.append(
        new LogEvent(
          { message: `${line} ${i}`, host: 'web-01', timestamp: new Timestamp(1_700_000_000_000 + i), source_type: 'demo_logs' },
          new EventMetadata('in', 'demo_logs'),
        ),
      );
    const perEvent = b.seal().length / 100;
    expect(perEvent).to.be.below(230);
    expect(perEvent).to.be.above(150);
  });
});

describe('buffer record format v2 builder', () => {
  const ev = (i: number, size: number) => new LogEvent({ message: 'm'.repeat(size), n: i }, new EventMetadata('in', 'demo_logs'));
  const ns = (events: Event[]) => events.map((e) => (e as LogEvent).fields.n);

  it('keeps every sealed record intact while later ones are built (across slabs and oversized events)', () => {
    const b = diskV2Format.createBuilder();
    const records: { rec: Buffer; want: number[] }[] = [];
    let n = 0;
    // small, full-sized and bigger-than-a-slab records, one after another
    for (const [events, size] of [
      [3, 100],
      [900, 250],
      [1, 3 * 1024 * 1024],
      [50, 1000],
      [2, 600 * 1024],
      [10, 10],
    ] as const) {
      const want: number[] = [];
      for (let i = 0; i < events; i++) {
        b.append(ev(n, size));
        want.push(n++);
      }
      records.push({ rec: b.seal(), want });
    }
    for (const { rec, want } of records) expect(ns(diskV2Format.decode(rec))).to.deep.equal(want);
  });

  it('a record sealed without its checksum decodes once checksummed, and is refused before', () => {
    const b = diskV2Format.createBuilder();
    for (let i = 0; i < 5; i++) b.append(ev(i, 20));
    const rec = b.seal(false);
    rec.writeUInt32BE(0, 1);
    expect(() => diskV2Format.decode(rec)).to.throw(DecodeError);
    diskV2Format.checksum!(rec);
    expect(ns(diskV2Format.decode(rec))).to.deep.equal([0, 1, 2, 3, 4]);
  });

  it('undo of the only event leaves an empty builder whose next record decodes', () => {
    const b = diskV2Format.createBuilder();
    b.append(ev(0, 10));
    b.undo();
    expect(b.bytes).to.equal(0);
    b.append(ev(1, 10));
    expect(ns(diskV2Format.decode(b.seal()))).to.deep.equal([1]);
  });
});

describe('buffer record format v2 repeated field names', () => {
  const log = (fields: ObjectValue) => new LogEvent(fields, new EventMetadata('in', 'socket'));
  const fieldsOf = (events: Event[]) => events.map((e) => (e as LogEvent).fields);
  const decodeAll = (events: Event[]) => {
    const b = diskV2Format.createBuilder();
    for (const e of events) b.append(e);
    return diskV2Format.decode(b.seal());
  };

  it('names the fields once while they repeat, and reads every event back as written', () => {
    const metric = new MetricEvent('hits', 'incremental', { type: 'counter', value: 1 }, new EventMetadata('in', 'internal_metrics'));
    const events: Event[] = [
      log({ a: 1, b: 'x' }),
      log({ a: 2, b: 'y' }),
      log({ b: 'z', a: 3 }), // other order
      log({ a: 4 }), // fewer
      metric, // in between: the names stay those of the last log event
      log({ a: 5 }),
      log({ a: 6, b: 'w', c: null }), // more
      log({ 2: 'two', 1: 'one', c: 7 }), // integer-like names enumerate first
      log({ 1: 'uno', 2: 'dos', c: 8 }),
      log(JSON.parse('{"__proto__": 1, "x": 2}') as ObjectValue), // an own field named __proto__
      log(JSON.parse('{"__proto__": 3, "x": 4}') as ObjectValue),
      log({}),
      log({}),
      log({ a: { nested: [1, new Float(2)] }, t: new Timestamp(1, 2) }),
      log({ a: { nested: [] }, t: new Timestamp(3, 4) }),
    ];
    const back = decodeAll(events);
    expect(back.length).to.equal(events.length);
    expect(back[4]!.type).to.equal('metric');
    const want = fieldsOf(events.filter((e) => e.type === 'log'));
    const got = fieldsOf(back.filter((e) => e.type === 'log'));
    for (let i = 0; i < want.length; i++) expect(same(got[i]!, want[i]!), `log event ${i}`).to.equal(true);
    expect(Object.keys(got[6]!)).to.deep.equal(['1', '2', 'c']);
    expect(Object.getOwnPropertyDescriptor(got[8]!, '__proto__')?.value).to.equal(1);
    expect(Object.getOwnPropertyDescriptor(got[9]!, '__proto__')?.value).to.equal(3);
    expect(Object.getPrototypeOf(got[9]!)).to.equal(Object.prototype);
  });

  it('round-trips records of events drawn from a few field names', () => {
    const fieldsArb = fc.dictionary(fc.constantFrom('a', 'b', 'message', '1', '__proto__'), valueArb, { maxKeys: 4 });
    fc.assert(
      fc.property(fc.array(fieldsArb, { minLength: 1, maxLength: 12 }), (all) => {
        const events = all.map((f) => log(f as ObjectValue));
        const got = fieldsOf(decodeAll(events));
        return got.length === all.length && got.every((f, i) => same(f, (events[i] as LogEvent).fields));
      }),
      { numRuns: 300 },
    );
  });

  it('an undone event leaves the names of the one before it', () => {
    const b = diskV2Format.createBuilder();
    b.append(log({ a: 1, b: 2 }));
    b.append(log({ c: 3 }));
    b.undo();
    b.append(log({ a: 4, b: 5 }));
    expect(fieldsOf(diskV2Format.decode(b.seal()))).to.deep.equal([
      { a: 1, b: 2 },
      { a: 4, b: 5 },
    ]);
  });

  it('a 200-byte line repeating its field names costs about its own length', () => {
    const b = diskV2Format.createBuilder();
    for (let i = 0; i < 100; i++)
      b.append(log({ message: `${'x'.repeat(190)} ${i}`, host: '127.0.0.1', port: 40000 + i, source_type: 'socket', timestamp: new Timestamp(1_700_000_000_000 + i) }));
    const perEvent = b.seal().length / 100;
    expect(perEvent).to.be.below(240);
  });
});
