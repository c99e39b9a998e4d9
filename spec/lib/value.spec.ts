import { expect } from 'chai';
import { Float, Timestamp, fromJSON, kindOf, toJSON, valueEquals, cloneValue, valueToString } from '../../lib/value.js';

describe('values', () => {
  it('keeps integers and floats distinct', () => {
    expect(kindOf(1)).to.equal('integer');
    expect(kindOf(new Float(1))).to.equal('float');
    expect(valueEquals(1, new Float(1))).to.equal(false);
    expect(fromJSON(1.5)).to.be.instanceOf(Float);
    expect(fromJSON(2)).to.equal(2);
  });

  const ts: [string, string][] = [
    ['2024-05-01T10:00:00Z', '2024-05-01T10:00:00Z'],
    ['2024-05-01T10:00:00.120Z', '2024-05-01T10:00:00.120Z'],
    ['2024-05-01T10:00:00.123456Z', '2024-05-01T10:00:00.123456Z'],
    ['2024-05-01T10:00:00.123456789Z', '2024-05-01T10:00:00.123456789Z'],
    ['2024-05-01T10:00:00.1234567Z', '2024-05-01T10:00:00.123456700Z'],
    ['2024-05-01T12:00:00+02:00', '2024-05-01T10:00:00Z'],
    ['2024-05-01t10:00:00.000001z', '2024-05-01T10:00:00.000001Z'],
  ];
  for (const [input, out] of ts) it(`timestamp ${input} -> ${out}`, () => expect(Timestamp.parse(input)!.toString()).to.equal(out));

  it('rejects non-RFC 3339 timestamps', () => {
    expect(Timestamp.parse('2024-05-01 10:00')).to.equal(undefined);
    expect(Timestamp.parse('yesterday')).to.equal(undefined);
  });

  it('keeps nanoseconds through fromNanos / toNanos, including before the epoch', () => {
    for (const n of [0n, 1n, 1_700_000_000_123_456_789n, -1n, -1_500_000n]) expect(Timestamp.fromNanos(n).toNanos()).to.equal(n);
  });

  it('serializes to JSON with RFC 3339 timestamps and deep-clones containers only', () => {
    const t = Timestamp.parse('2024-05-01T10:00:00.5Z')!;
    const v = { a: [1, new Float(2.5), t], b: { c: null } };
    expect(toJSON(v)).to.deep.equal({ a: [1, 2.5, '2024-05-01T10:00:00.500Z'], b: { c: null } });
    const c = cloneValue(v) as typeof v;
    expect(c).to.not.equal(v);
    expect(c.a).to.not.equal(v.a);
    expect(c.a[2]).to.equal(t);
    expect(valueEquals(c, v)).to.equal(true);
  });

  it('renders text: strings as is, containers as JSON, null as empty', () => {
    expect(valueToString('x')).to.equal('x');
    expect(valueToString(null)).to.equal('');
    expect(valueToString({ a: 1 })).to.equal('{"a":1}');
    expect(valueToString(new Float(1.5))).to.equal('1.5');
  });
});
