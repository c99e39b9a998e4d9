import { expect } from 'chai';
import fc from 'fast-check';
import * as v from 'valibot';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import {
  DEFAULT_MAX_FRAME_LENGTH,
  type Deframer,
  type FrameDiscard,
  type FrameSink,
  type FramingConfig,
  createDeframer,
  createFramer,
  deframeAll,
  framingSchema,
} from '../../../lib/codecs/index.js';

const b = (s: string) => Buffer.from(s, 'latin1');
const texts = (bufs: Buffer[]) => bufs.map((x) => x.toString('latin1'));
const MiB = 1024 * 1024;

/** The V8 collector, so a memory measurement sees only what is still referenced. */
function collector(): () => void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) return g;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** A u32 big-endian length prefix. */
function u32(n: number): Buffer {
  const h = Buffer.alloc(4);
  h.writeUInt32BE(n);
  return h;
}

/** Every way of cutting `input` into two or three chunks, so frames split at every position. */
function splits(input: string): string[][] {
  const out: string[][] = [[input]];
  for (let i = 0; i <= input.length; i++) {
    out.push([input.slice(0, i), input.slice(i)]);
    for (let j = i; j <= input.length; j += 3) out.push([input.slice(0, i), input.slice(i, j), input.slice(j)]);
  }
  return out;
}

interface Case {
  name: string;
  framing: FramingConfig;
  input: string;
  frames: string[];
  discarded?: number;
  /** Discard reasons in order, when the case checks them. */
  reasons?: FrameDiscard[];
  eof?: boolean;
  defaultMaxLength?: number;
}

const cases: Case[] = [
  { name: 'newline: lines, trailing partial emitted at EOF', framing: { method: 'newline_delimited' }, input: 'a\nbb\n\nccc', frames: ['a', 'bb', '', 'ccc'] },
  { name: 'newline: no EOF keeps the partial', framing: { method: 'newline_delimited' }, input: 'a\nbb\nccc', frames: ['a', 'bb'], eof: false },
  { name: 'newline: keeps CR', framing: { method: 'newline_delimited' }, input: 'a\r\nb\n', frames: ['a\r', 'b'] },
  {
    name: 'newline: max_length discards long frames entirely',
    framing: { method: 'newline_delimited', newline_delimited: { max_length: 3 } },
    input: 'abc\nabcd\nxy\nabcdefghij\nz\n',
    frames: ['abc', 'xy', 'z'],
    discarded: 2,
  },
  {
    name: 'newline: an over-long unterminated tail is discarded at EOF',
    framing: { method: 'newline_delimited', newline_delimited: { max_length: 3 } },
    input: 'ok\ntoolong',
    frames: ['ok'],
    discarded: 1,
  },
  {
    name: 'character_delimited: comma',
    framing: { method: 'character_delimited', character_delimited: { delimiter: ',' } },
    input: 'a,b,,c',
    frames: ['a', 'b', '', 'c'],
  },
  {
    name: 'character_delimited: max_length',
    framing: { method: 'character_delimited', character_delimited: { delimiter: '|', max_length: 2 } },
    input: 'ab|abc|a|',
    frames: ['ab', 'a'],
    discarded: 1,
  },
  { name: 'bytes: whole stream is one frame', framing: { method: 'bytes' }, input: 'a\nb\nc', frames: ['a\nb\nc'] },
  { name: 'bytes: empty input has no frame', framing: { method: 'bytes' }, input: '', frames: [] },
  {
    name: 'bytes: input over the limit is discarded whole and counted once',
    framing: { method: 'bytes' },
    defaultMaxLength: 4,
    input: 'abcdefgh',
    frames: [],
    reasons: ['frame_too_long'],
    discarded: 1,
  },
  { name: 'bytes: input at the limit is one frame', framing: { method: 'bytes' }, defaultMaxLength: 4, input: 'abcd', frames: ['abcd'] },
  {
    name: 'length_delimited: u32 big-endian prefix',
    framing: { method: 'length_delimited' },
    input: '\x00\x00\x00\x03abc\x00\x00\x00\x00\x00\x00\x00\x02hi',
    frames: ['abc', '', 'hi'],
  },
  {
    name: 'length_delimited: a frame cut off at EOF is dropped and counted',
    framing: { method: 'length_delimited' },
    input: '\x00\x00\x00\x02hi\x00\x00\x00\x05abc',
    frames: ['hi'],
    discarded: 1,
    reasons: ['truncated'],
  },
  {
    name: 'length_delimited: a header cut off at EOF is counted',
    framing: { method: 'length_delimited' },
    input: '\x00\x00\x00\x02hi\x00\x00',
    frames: ['hi'],
    reasons: ['truncated'],
    discarded: 1,
  },
  {
    name: 'length_delimited: max_frame_length skips the announced bytes and resynchronises',
    framing: { method: 'length_delimited', length_delimited: { max_frame_length: 5 } },
    input: '\x00\x00\x00\x05hello\x00\x00\x00\x06abcdef\x00\x00\x00\x02ok',
    frames: ['hello', 'ok'],
    discarded: 1,
    reasons: ['frame_too_long'],
  },
  {
    name: 'length_delimited: EOF while skipping an oversized frame counts it once',
    framing: { method: 'length_delimited', length_delimited: { max_frame_length: 5 } },
    input: '\x00\x00\x00\x01a\x7f\xff\xff\xffxyz',
    frames: ['a'],
    reasons: ['frame_too_long'],
    discarded: 1,
  },
  {
    name: 'length_delimited: 2-byte little-endian length after a 1-byte offset',
    framing: { method: 'length_delimited', length_delimited: { length_field_length: 2, length_field_is_big_endian: false, length_field_offset: 1 } },
    input: '\xaa\x03\x00abc\xbb\x00\x00\xcc\x02\x00hi',
    frames: ['abc', '', 'hi'],
  },
  {
    name: 'length_delimited: 1-byte length',
    framing: { method: 'length_delimited', length_delimited: { length_field_length: 1 } },
    input: '\x01a\x00\x03xyz',
    frames: ['a', '', 'xyz'],
  },
  {
    name: 'length_delimited: 8-byte big-endian length past 2^32 is over the limit',
    framing: { method: 'length_delimited', length_delimited: { length_field_length: 8 } },
    input: '\x00\x00\x00\x00\x00\x00\x00\x02ok\x00\x00\x01\x00\x00\x00\x00\x00zz',
    frames: ['ok'],
    reasons: ['frame_too_long'],
    discarded: 1,
  },
  {
    name: 'length_delimited: 7-byte little-endian length',
    framing: { method: 'length_delimited', length_delimited: { length_field_length: 7, length_field_is_big_endian: false } },
    input: '\x03\x00\x00\x00\x00\x00\x00abc',
    frames: ['abc'],
  },
  {
    name: 'octet_counting: counted frames, spaces and newlines inside',
    framing: { method: 'octet_counting' },
    input: '5 hello11 hello world3 a\nb',
    frames: ['hello', 'hello world', 'a\nb'],
  },
  {
    name: 'octet_counting: falls back to lines when no count',
    framing: { method: 'octet_counting' },
    input: '<13>one\r\n<13>two\n3 abc\n<14>three',
    frames: ['<13>one', '<13>two', 'abc', '<14>three'],
  },
  {
    name: 'octet_counting: max_length skips the counted bytes',
    framing: { method: 'octet_counting', octet_counting: { max_length: 4 } },
    input: '4 abcd10 01234567892 ok',
    frames: ['abcd', 'ok'],
    discarded: 1,
  },
  {
    name: 'octet_counting: a counted frame cut off at EOF is counted',
    framing: { method: 'octet_counting' },
    input: '2 ok5 abc',
    frames: ['ok'],
    reasons: ['truncated'],
    discarded: 1,
  },
  {
    name: 'octet_counting: a count cut off at EOF is counted',
    framing: { method: 'octet_counting' },
    input: '2 ok12',
    frames: ['ok'],
    reasons: ['truncated'],
    discarded: 1,
  },
  {
    name: 'octet_counting: a bad count cut off at EOF is an invalid length',
    framing: { method: 'octet_counting' },
    input: '2 ok12x',
    frames: ['ok'],
    reasons: ['invalid_length'],
    discarded: 1,
  },
  {
    name: 'octet_counting: a line may be max_length plus its CR; longer lines are dropped to the LF',
    framing: { method: 'octet_counting', octet_counting: { max_length: 3 } },
    input: 'abc\r\nabcd\r\nabcdefgh\nxy',
    frames: ['abc', 'xy'],
    reasons: ['frame_too_long', 'frame_too_long'],
    discarded: 2,
  },
  {
    name: 'octet_counting: a bad count with no space within max_length is dropped to the LF',
    framing: { method: 'octet_counting', octet_counting: { max_length: 4 } },
    input: '1x23456789\n2 ok',
    frames: ['ok'],
    reasons: ['frame_too_long'],
    discarded: 1,
  },
  {
    name: 'octet_counting: a non-numeric count is skipped to the space',
    framing: { method: 'octet_counting' },
    input: '12x4 zork\n2 ok',
    frames: ['zork', 'ok'],
    discarded: 1,
  },
];

describe('lib/codecs framing', () => {
  describe('decoders', () => {
    for (const c of cases) {
      it(c.name, () => {
        for (const parts of splits(c.input)) {
          const reasons: FrameDiscard[] = [];
          const d = createDeframer(c.framing, { onDiscard: (r) => reasons.push(r), defaultMaxLength: c.defaultMaxLength });
          const got = texts(deframeAll(d, parts.map(b), c.eof ?? true));
          expect(got, JSON.stringify(parts)).to.deep.equal(c.frames);
          expect(reasons.length, `discards for ${JSON.stringify(parts)}`).to.equal(c.discarded ?? 0);
          if (c.reasons) expect(reasons, `reasons for ${JSON.stringify(parts)}`).to.deep.equal(c.reasons);
          if (c.eof ?? true) expect(d.bufferedBytes, 'nothing held after EOF').to.equal(0);
        }
      });
    }

    it('property: newline frames equal a plain split however the input is chunked, with max_length', () => {
      fc.assert(
        fc.property(fc.array(fc.stringMatching(/^[ab]{0,12}$/), { maxLength: 12 }), fc.array(fc.nat(40), { maxLength: 6 }), fc.integer({ min: 1, max: 8 }), (lines, cuts, max) => {
          const text = lines.map((l) => l + '\n').join('');
          const points = [...new Set(cuts.map((c) => Math.min(c, text.length)))].sort((x, y) => x - y);
          const chunks: string[] = [];
          let prev = 0;
          for (const p of points) {
            chunks.push(text.slice(prev, p));
            prev = p;
          }
          chunks.push(text.slice(prev));
          let discarded = 0;
          const got = texts(deframeAll(createDeframer({ method: 'newline_delimited', newline_delimited: { max_length: max } }, { onDiscard: () => discarded++ }), chunks.map(b)));
          expect(got).to.deep.equal(lines.filter((l) => l.length <= max));
          expect(discarded).to.equal(lines.filter((l) => l.length > max).length);
        }),
        { numRuns: 300 },
      );
    });

    it('property: length_delimited and octet_counting round-trip under any chunking', () => {
      fc.assert(
        fc.property(fc.array(fc.string({ maxLength: 30 }), { maxLength: 10 }), fc.integer({ min: 1, max: 17 }), (payloads, step) => {
          for (const method of ['length_delimited', 'octet_counting'] as const) {
            const nonEmpty = method === 'octet_counting' ? payloads.filter((p) => p.length > 0) : payloads;
            const bytes = createFramer({ method }).frameTexts(nonEmpty);
            const chunks: Buffer[] = [];
            for (let i = 0; i < bytes.length; i += step) chunks.push(bytes.subarray(i, i + step));
            expect(deframeAll(createDeframer({ method }), chunks).map((f) => f.toString('utf8')), method).to.deep.equal(nonEmpty);
          }
        }),
        { numRuns: 300 },
      );
    });

    it('hands out sub-ranges of the chunk without copying on the newline path', () => {
      const d = createDeframer({ method: 'newline_delimited' });
      const chunk = b('x\ny\n');
      const seen: [Buffer, number, number][] = [];
      d.push(chunk, (buf, s, e) => seen.push([buf, s, e]));
      expect(seen).to.deep.equal([
        [chunk, 0, 1],
        [chunk, 2, 3],
      ]);
    });

    it('a large counted frame arriving in many small chunks decodes whole', () => {
      const payload = Buffer.alloc(300_000, 0x61);
      for (const method of ['length_delimited', 'octet_counting'] as const) {
        const bytes = Buffer.concat([createFramer({ method }).frame(payload), createFramer({ method }).frame(Buffer.from('next'))]);
        const chunks: Buffer[] = [];
        for (let i = 0; i < bytes.length; i += 997) chunks.push(bytes.subarray(i, i + 997));
        const frames = deframeAll(createDeframer({ method }), chunks);
        expect(frames.map((f) => f.length), method).to.deep.equal([300_000, 4]);
        expect(frames[0]!.equals(payload)).to.equal(true);
      }
    });

    it('uses the source default max_length when the framing sets none', () => {
      let discarded = 0;
      const d = createDeframer({ method: 'newline_delimited' }, { defaultMaxLength: 2, onDiscard: () => discarded++ });
      expect(texts(deframeAll(d, [b('ab\nabc\n')]))).to.deep.equal(['ab']);
      expect(discarded).to.equal(1);
    });

    it('a 2 GiB length prefix is skipped unbuffered: RSS stays flat, the frame is counted, the next frame decodes', () => {
      const gc = collector();
      const reasons: [FrameDiscard, number][] = [];
      const frames: string[] = [];
      const emit: FrameSink = (buf, s, e) => frames.push(buf.toString('latin1', s, e));
      const d = createDeframer({ method: 'length_delimited' }, { onDiscard: (r, n) => reasons.push([r, n]) });
      const announced = 2 ** 31;
      d.push(u32(announced), emit);
      gc();
      const rss0 = process.memoryUsage().rss;
      let held = 0;
      // 256 MiB of the announced bytes in fresh, written 1 MiB chunks, as a socket delivers them:
      // a decoder that kept them would grow RSS by 256 MiB
      for (let i = 0; i < 256; i++) {
        d.push(Buffer.alloc(MiB, i), emit);
        held = Math.max(held, d.bufferedBytes);
        if (i % 16 === 15) gc();
      }
      gc();
      const grown = process.memoryUsage().rss - rss0;
      expect(reasons).to.deep.equal([['frame_too_long', announced]]);
      expect(held).to.equal(0);
      expect(grown, `RSS grew ${(grown / MiB).toFixed(1)} MiB`).to.be.below(64 * MiB);
      // the rest of the announced bytes (one buffer pushed again: no allocation), then the next frame
      const filler = Buffer.alloc(MiB, 0x78);
      let left = announced - 256 * MiB - 3;
      while (left >= MiB) {
        d.push(filler, emit);
        left -= MiB;
      }
      if (left > 0) d.push(filler.subarray(0, left), emit);
      expect(frames).to.deep.equal([]);
      d.push(Buffer.concat([Buffer.from('xyz'), u32(4), Buffer.from('next')]), emit);
      d.end(emit);
      expect(frames).to.deep.equal(['next']);
      expect(reasons).to.have.length(1);
    });

    it('an oversized octet count is skipped the same way, without buffering', () => {
      const reasons: FrameDiscard[] = [];
      const frames: string[] = [];
      const emit: FrameSink = (buf, s, e) => frames.push(buf.toString('latin1', s, e));
      const d = createDeframer({ method: 'octet_counting', octet_counting: { max_length: 1024 } }, { onDiscard: (r) => reasons.push(r) });
      d.push(Buffer.from(`${64 * MiB} `), emit);
      const chunk = Buffer.alloc(MiB, 0x61);
      for (let i = 0; i < 64; i++) {
        d.push(chunk, emit);
        expect(d.bufferedBytes).to.equal(0);
      }
      d.push(Buffer.from('2 ok'), emit);
      expect(frames).to.deep.equal(['ok']);
      expect(reasons).to.deep.equal(['frame_too_long']);
    });

    describe('every framing is bounded without a configured limit', () => {
      const over = DEFAULT_MAX_FRAME_LENGTH + 1;
      const table: [string, FramingConfig, Buffer][] = [
        ['bytes', { method: 'bytes' }, Buffer.alloc(0)],
        ['newline_delimited', { method: 'newline_delimited' }, Buffer.alloc(0)],
        ['character_delimited', { method: 'character_delimited', character_delimited: { delimiter: ',' } }, Buffer.alloc(0)],
        ['octet_counting (a line)', { method: 'octet_counting' }, Buffer.alloc(0)],
        ['octet_counting (a count)', { method: 'octet_counting' }, Buffer.from(`${over} `)],
        ['length_delimited', { method: 'length_delimited' }, u32(over)],
      ];
      for (const [name, framing, header] of table) {
        it(`${name}: ${DEFAULT_MAX_FRAME_LENGTH} bytes by default, one discard, nothing held past the limit`, () => {
          const reasons: FrameDiscard[] = [];
          const d: Deframer = createDeframer(framing, { onDiscard: (r) => reasons.push(r) });
          const emit: FrameSink = () => expect.fail('no frame expected');
          if (header.length > 0) d.push(header, emit);
          const chunk = Buffer.alloc(64 * 1024, 0x61);
          let held = 0;
          // exactly one byte more than the limit (for the counted framings: the announced payload)
          for (let sent = 0; sent < over; sent += chunk.length) {
            d.push(over - sent >= chunk.length ? chunk : chunk.subarray(0, over - sent), emit);
            held = Math.max(held, d.bufferedBytes);
          }
          d.end(emit);
          expect(reasons).to.deep.equal(['frame_too_long']);
          expect(held).to.be.at.most(DEFAULT_MAX_FRAME_LENGTH + 1);
        });
      }
      it('a source default (max_length) applies to the max_length framings, not to length_delimited', () => {
        const reasons: FrameDiscard[] = [];
        const got = deframeAll(createDeframer({ method: 'length_delimited' }, { defaultMaxLength: 2, onDiscard: (r) => reasons.push(r) }), [u32(5), b('hello')]);
        expect(texts(got)).to.deep.equal(['hello']);
        expect(reasons).to.deep.equal([]);
      });
    });

    it('a discard spanning many chunks counts once and resynchronises at the delimiter', () => {
      let discarded = 0;
      const d = createDeframer({ method: 'newline_delimited', newline_delimited: { max_length: 4 } }, { onDiscard: () => discarded++ });
      const chunks = ['ok\nxxxx', 'xxxx', 'xxxx', 'xx\nfine\n'].map(b);
      expect(texts(deframeAll(d, chunks))).to.deep.equal(['ok', 'fine']);
      expect(discarded).to.equal(1);
    });
  });

  describe('encoders', () => {
    const events = ['a', 'héllo', ''];
    const table: [string, FramingConfig, string][] = [
      ['newline', { method: 'newline_delimited' }, 'a\nhéllo\n\n'],
      ['character', { method: 'character_delimited', character_delimited: { delimiter: '\0' } }, 'a\0héllo\0\0'],
      ['bytes', { method: 'bytes' }, 'ahéllo'],
      ['octet counting (byte lengths)', { method: 'octet_counting' }, '1 a6 héllo0 '],
    ];
    for (const [name, framing, expected] of table) {
      it(name, () => {
        expect(createFramer(framing).frameTexts(events).toString('utf8')).to.equal(expected);
      });
    }
    it('length_delimited writes a big-endian u32 byte length before each payload', () => {
      const out = createFramer({ method: 'length_delimited' }).frameTexts(events);
      expect(out.toString('hex')).to.equal('00000001' + '61' + '00000006' + Buffer.from('héllo').toString('hex') + '00000000');
    });
    it('encoder output decodes back to the same frames', () => {
      for (const method of ['newline_delimited', 'length_delimited', 'octet_counting'] as const) {
        const bytes = createFramer({ method }).frameTexts(['one', 'two words', 'x']);
        const frames = deframeAll(createDeframer({ method }), [bytes]).map((x) => x.toString());
        expect(frames, method).to.deep.equal(['one', 'two words', 'x']);
      }
    });
    it('gelf defaults to NUL-delimited frames, others to newlines', () => {
      expect(createFramer({}, 'gelf').frameTexts(['{}']).toString()).to.equal('{}\0');
      expect(createFramer({}, 'json').frameTexts(['{}']).toString()).to.equal('{}\n');
    });
  });

  describe('framingSchema', () => {
    const schema = framingSchema(['bytes', 'newline_delimited', 'character_delimited'], 'newline_delimited');
    const issues = (x: unknown) => v.safeParse(schema, x).issues?.map((i) => ({ path: i.path?.map((p) => p.key).join('.'), message: i.message }));
    it('applies the default method', () => {
      expect(v.parse(schema, {})).to.deep.include({ method: 'newline_delimited' });
    });
    it('names allowed methods on a bad one', () => {
      const r = v.safeParse(schema, { method: 'octet_counting' });
      expect(r.success).to.equal(false);
      expect(r.issues![0].expected).to.contain('"character_delimited"');
    });
    it('requires a delimiter for character_delimited, at its path', () => {
      expect(issues({ method: 'character_delimited' })).to.deep.equal([
        { path: 'character_delimited.delimiter', message: 'delimiter is required when method is "character_delimited"' },
      ]);
    });
    it('rejects a multi-character delimiter', () => {
      expect(issues({ method: 'character_delimited', character_delimited: { delimiter: 'ab' } })![0]!.message).to.equal('must be exactly one ASCII character');
    });
    it('rejects options of another method', () => {
      expect(issues({ method: 'bytes', newline_delimited: { max_length: 4 } })![0]!.message).to.contain('applies only when method is "newline_delimited"');
    });
    it('length_delimited options: accepted where frames are decoded, checked, rejected by encoders', () => {
      const dec = framingSchema(['length_delimited', 'newline_delimited']);
      const opts = { max_frame_length: 1024, length_field_length: 2, length_field_offset: 1, length_field_is_big_endian: false };
      expect(v.parse(dec, { method: 'length_delimited', length_delimited: opts })).to.deep.equal({ method: 'length_delimited', length_delimited: opts });
      const decIssues = (x: unknown) => v.safeParse(dec, x).issues?.map((i) => ({ path: i.path?.map((p) => p.key).join('.'), message: i.message }));
      expect(decIssues({ length_delimited: { length_field_length: 9 } })![0]!.path).to.equal('length_delimited.length_field_length');
      expect(decIssues({ length_delimited: { max_frame_length: 0 } })![0]!.path).to.equal('length_delimited.max_frame_length');
      expect(decIssues({ length_delimited: { length_field_offset: -1 } })![0]!.path).to.equal('length_delimited.length_field_offset');
      expect(decIssues({ method: 'newline_delimited', length_delimited: {} })![0]!.message).to.contain('applies only when method is "length_delimited"');
      const enc = framingSchema(['length_delimited'], undefined, 'encode');
      const encIssues = v.safeParse(enc, { length_delimited: { max_frame_length: 5, length_field_length: 2 } }).issues!;
      expect(encIssues.map((i) => i.path?.map((p) => p.key).join('.'))).to.deep.equal(['length_delimited.max_frame_length', 'length_delimited.length_field_length']);
      expect(encIssues[0]!.message).to.equal('max_frame_length applies only where frames are decoded (sources)');
    });
    it('encoders reject max_length', () => {
      const enc = framingSchema(['newline_delimited'], undefined, 'encode');
      expect(v.safeParse(enc, { newline_delimited: { max_length: 3 } }).success).to.equal(false);
      expect(v.parse(enc, {})).to.deep.equal({});
    });
  });
});
