import { expect } from 'chai';
import fc from 'fast-check';
import * as v from 'valibot';
import { type FramingConfig, createDeframer, createFramer, deframeAll, framingSchema } from '../../../lib/codecs/index.js';

const b = (s: string) => Buffer.from(s, 'latin1');
const texts = (bufs: Buffer[]) => bufs.map((x) => x.toString('latin1'));

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
  eof?: boolean;
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
    name: 'length_delimited: u32 big-endian prefix',
    framing: { method: 'length_delimited' },
    input: '\x00\x00\x00\x03abc\x00\x00\x00\x00\x00\x00\x00\x02hi',
    frames: ['abc', '', 'hi'],
  },
  {
    name: 'length_delimited: truncated frame at EOF is dropped',
    framing: { method: 'length_delimited' },
    input: '\x00\x00\x00\x02hi\x00\x00\x00\x05abc',
    frames: ['hi'],
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
          let discarded = 0;
          const d = createDeframer(c.framing, { onDiscard: () => discarded++ });
          const got = texts(deframeAll(d, parts.map(b), c.eof ?? true));
          expect(got, JSON.stringify(parts)).to.deep.equal(c.frames);
          expect(discarded, `discards for ${JSON.stringify(parts)}`).to.equal(c.discarded ?? 0);
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
    it('encoders reject max_length', () => {
      const enc = framingSchema(['newline_delimited'], undefined, 'encode');
      expect(v.safeParse(enc, { newline_delimited: { max_length: 3 } }).success).to.equal(false);
      expect(v.parse(enc, {})).to.deep.equal({});
    });
  });
});
