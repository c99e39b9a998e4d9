import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import { ForwardDecodeError, createForwardDecoder } from '../../../../connectors/sources/logfwd/decode.js';
import { createUnpackr } from '../../../../connectors/sources/logfwd/msgpack.js';
import { type RecordShape, recordEvent } from '../../../../connectors/sources/logfwd/record.js';
import type { ObjectValue } from '../../../../lib/value.js';
import { arr, entry, eventTime, eventTimeExt8, forward, gzipMembers, message, pack, packed } from './frames.js';

const shape: RecordShape = { sourceId: 'in', sourceTypeKey: 'source_type', timestampKey: 'timestamp', hostKey: 'host' };
const json = (f: ObjectValue) => JSON.parse(JSON.stringify(f)) as Record<string, unknown>;

function decoder(limits = { maxFrameBytes: 1 << 20, maxDecompressedBytes: 1 << 20 }) {
  const d = createForwardDecoder(createUnpackr(), limits);
  const events: Record<string, unknown>[] = [];
  const chunks: string[] = [];
  const push = (b: Buffer) => d.push(b, (tag, time, rec) => events.push(json(recordEvent(shape, tag, time, rec, '10.0.0.5').fields)), chunks);
  return { push, end: () => d.end(), events, chunks };
}

describe('logfwd source: frame decoding', () => {
  it('builds the event of the reference example field by field, in insertion order', () => {
    const d = decoder();
    d.push(forward('app.web', [entry(1714557600, { message: 'ok', code: 200 })]));
    expect(d.events).to.deep.equal([{ source_type: 'logfwd', timestamp: '2024-05-01T10:00:00Z', tag: 'app.web', message: 'ok', code: 200, host: '10.0.0.5' }]);
    expect(Object.keys(d.events[0]!)).to.deep.equal(['source_type', 'timestamp', 'tag', 'message', 'code', 'host']);
  });

  it('record keys win over source_type, timestamp and tag; a record host is kept; no message is invented; dotted keys stay literal', () => {
    const d = decoder();
    d.push(message('t', 1, { tag: 'mine', timestamp: 'then', source_type: 'x', host: 'h1', 'a.b': 1, nested: { c: [1, 'two'] } }));
    expect(d.events).to.deep.equal([{ source_type: 'x', timestamp: 'then', tag: 'mine', host: 'h1', 'a.b': 1, nested: { c: [1, 'two'] } }]);
    expect(d.events[0]).to.not.have.property('message');
  });

  it('Message mode with integer time, EventTime (fixext 8 and ext 8) keeping nanoseconds', () => {
    const d = decoder();
    d.push(Buffer.concat([message('a', 1714557600, { n: 1 }), message('b', eventTime(1714557600, 123456789), { n: 2 }), message('c', eventTimeExt8(1714557600, 5000), { n: 3 })]));
    expect(d.events.map((e) => [e.tag, e.timestamp, e.n])).to.deep.equal([
      ['a', '2024-05-01T10:00:00Z', 1],
      ['b', '2024-05-01T10:00:00.123456789Z', 2],
      ['c', '2024-05-01T10:00:00.000005Z', 3],
    ]);
  });

  it('Forward, PackedForward (bin blob), CompressedPackedForward with several gzip members; chunk options collected in order', () => {
    const d = decoder();
    const es = [entry(10, { i: 1 }), entry(eventTime(11, 0), { i: 2 })];
    d.push(forward('f', es, { chunk: 'c1', size: 2 }));
    d.push(packed('p', es, { chunk: 'c2' }));
    d.push(packed('g', es, { chunk: 'c3', compressed: 'gzip' }, { gzip: true }));
    d.push(arr(pack('m'), pack(gzipMembers(es)), pack({ compressed: 'gzip' })));
    d.push(packed('t', es, { compressed: 'text' }));
    expect(d.events.map((e) => `${e.tag}${e.i}`)).to.deep.equal(['f1', 'f2', 'p1', 'p2', 'g1', 'g2', 'm1', 'm2', 't1', 't2']);
    expect(d.chunks).to.deep.equal(['c1', 'c2', 'c3']);
  });

  it('heartbeats (nil) produce nothing', () => {
    const d = decoder();
    d.push(Buffer.from([0xc0, 0xc0]));
    d.push(Buffer.concat([Buffer.from([0xc0]), message('a', 1, { x: 1 }), Buffer.from([0xc0])]));
    expect(d.events).to.have.length(1);
  });

  it('a frame split across reads at every byte decodes once complete', () => {
    const frame = Buffer.concat([forward('f', [entry(1, { msg: 'x'.repeat(40) }), entry(2, { b: Buffer.from([0xff, 0x41]) })], { chunk: 'z' }), message('m', 3, { k: 1 })]);
    for (let cut = 1; cut < frame.length; cut++) {
      const d = decoder();
      d.push(frame.subarray(0, cut));
      d.push(frame.subarray(cut));
      d.end();
      expect(d.events.map((e) => e.tag), `cut at ${cut}`).to.deep.equal(['f', 'f', 'm']);
      expect(d.chunks).to.deep.equal(['z']);
    }
  });

  it('values: bin as a lossy string, non-string map keys dropped, u64 above i64 as a decimal string, floats, nil, other ext types as an object', () => {
    const d = decoder();
    const u64 = Buffer.from([0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    const ext5 = Buffer.from([0xd4, 0x05, 0x41]); // fixext 1, type 5, data "A"
    // map {"bin": bin, 1: "dropped", "u": u64, "f": 1.5, "n": nil, "e": ext5}
    const rec = Buffer.concat([Buffer.from([0x86]), pack('bin'), pack(Buffer.from([0x68, 0x69, 0xff])), pack(1), pack('dropped'), pack('u'), u64, pack('f'), pack(1.5), pack('n'), Buffer.from([0xc0]), pack('e'), ext5]);
    d.push(arr(pack('t'), pack(1), rec));
    expect(d.events[0]).to.deep.equal({ source_type: 'logfwd', timestamp: '1970-01-01T00:00:01Z', tag: 't', bin: 'hi\uFFFD', u: '18446744073709551615', f: 1.5, n: null, e: { msgpack_extension_code: 5, bytes: 'A' }, host: '10.0.0.5' });
  });

  const bad: [string, Buffer][] = [
    ['a bare integer', pack(42)],
    ['a string', pack('hello')],
    ['a map', pack({ a: 1 })],
    ['a tag that is not a string', arr(pack(1), pack(1), pack({}))],
    ['a float time', message('t', 1.5, { a: 1 })],
    ['an EventTime of 4 bytes', arr(pack('t'), Buffer.from([0xd6, 0x00, 0, 0, 0, 1]), pack({}))],
    ['an ext of another type as time', arr(pack('t'), Buffer.from([0xd7, 0x01, 0, 0, 0, 1, 0, 0, 0, 0]), pack({}))],
    ['a record that is not a map', message('t', 1, [1, 2])],
    ['an option that is not a map', message('t', 1, {}, 'opt')],
    ['unknown compression', packed('t', [entry(1, {})], { compressed: 'zstd' })],
    ['bad gzip', arr(pack('t'), pack(Buffer.from('not gzip at all')), pack({ compressed: 'gzip' }))],
    ['a malformed packed entry', packed('t', [entry(1, { ok: 1 }), pack('junk')])],
    ['a Forward entry of three elements', forward('t', [arr(pack(1), pack({}), pack(1))])],
    ['a five-element array', arr(pack('t'), pack(1), pack({}), pack({}), pack({}))],
    ['a non-string chunk', message('t', 1, {}, { chunk: 7 })],
    ['a packed blob sent as str', packed('t', [entry(1, {})], undefined, { asStr: true })],
    ['garbage bytes', Buffer.from([0xc1, 0x00, 0x01])],
  ];
  for (const [what, frame] of bad) {
    it(`rejects ${what}, after delivering the frames before it; a bad Forward entry drops its whole frame`, () => {
      const d = decoder();
      const before = message('ok', 1, { n: 1 }, { chunk: 'good' });
      expect(() => d.push(Buffer.concat([before, frame]))).to.throw(ForwardDecodeError);
      expect(d.events.map((e) => e.tag)).to.deep.equal(['ok']);
      expect(d.chunks).to.deep.equal(['good']);
    });
  }

  it('a truncated final packed entry is ignored', () => {
    const d = decoder();
    const blob = Buffer.concat([entry(1, { a: 1 }), entry(2, { a: 2 }).subarray(0, 4)]);
    d.push(arr(pack('t'), pack(blob)));
    expect(d.events.map((e) => e.a)).to.deep.equal([1]);
  });

  it('a frame held past maxFrameBytes without completing is an error', () => {
    const d = decoder({ maxFrameBytes: 1000, maxDecompressedBytes: 1 << 20 });
    const big = message('t', 1, { m: 'x'.repeat(5000) });
    // the str header announces 5000 bytes: known too large before it is buffered
    expect(() => d.push(big.subarray(0, 900))).to.throw(ForwardDecodeError, /larger than 1000 bytes/);
    // many small values: the size is learnt only by buffering past the cap
    const e = decoder({ maxFrameBytes: 1000, maxDecompressedBytes: 1 << 20 });
    const many = forward('t', Array.from({ length: 200 }, (_, i) => entry(i, { i })));
    e.push(many.subarray(0, 900));
    expect(() => e.push(many.subarray(900, 1100))).to.throw(ForwardDecodeError, /larger than 1000 bytes/);
    expect(e.events).to.have.length(0);
  });

  it('a frame just under maxFrameBytes split in reads decodes', () => {
    const big = message('t', 1, { m: 'x'.repeat(900) });
    const d = decoder({ maxFrameBytes: big.length, maxDecompressedBytes: 1 << 20 });
    d.push(big.subarray(0, 500));
    d.push(big.subarray(500));
    expect(d.events).to.have.length(1);
  });

  it('a gzip blob inflating past maxDecompressedBytes is an error', () => {
    const d = decoder({ maxFrameBytes: 1 << 20, maxDecompressedBytes: 10_000 });
    const blob = gzipSync(Buffer.concat(Array.from({ length: 200 }, () => entry(1, { m: 'y'.repeat(100) }))));
    expect(() => d.push(arr(pack('t'), pack(blob), pack({ compressed: 'gzip' })))).to.throw(ForwardDecodeError, /exceeds the limit/);
    expect(d.events).to.have.length(0);
  });

  it('end of stream inside a frame is an error; between frames it is not', () => {
    const d = decoder();
    d.push(message('t', 1, { a: 1 }));
    d.end();
    const f = message('t', 1, { a: 1 });
    d.push(f.subarray(0, 5));
    expect(() => d.end()).to.throw(ForwardDecodeError, /cut off/);
  });
});
