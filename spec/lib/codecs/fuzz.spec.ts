/**
 * Property-based robustness of the stream codecs against hostile input: random and crafted byte
 * streams (huge length prefixes, endless digits, lone CRs, deep JSON nesting, syslog fragments),
 * cut at random chunk boundaries, go through every framing's decoder and every deserializer.
 * Nothing may throw out of a decoder, a deserializer may only throw DecodeError, the bytes a
 * decoder holds stay within its limit, and the frames do not depend on how the input was chunked.
 *
 * Runs in a few seconds. For a longer search: WEIR_FUZZ_RUNS=20000 (runs per property) and
 * WEIR_FUZZ_SEED=<n> to vary or replay one (fast-check prints the seed of a failure).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import {
  DECODING_CODECS,
  DecodeError,
  type Deframer,
  type FrameDiscard,
  type FramingConfig,
  type Stamp,
  createDeframer,
  createDeserializer,
  streamDecoderFactory,
} from '../../../lib/codecs/index.js';
import type { Event, LogEvent } from '../../../lib/event.js';
import { Timestamp } from '../../../lib/value.js';
import { testSourceContext } from '../../connectors/sources/source-context.js';

const RUNS = Number(process.env.WEIR_FUZZ_RUNS ?? 400);
const SEED = Number(process.env.WEIR_FUZZ_SEED ?? 20260611);
const params = (runs = RUNS) => ({ numRuns: runs, seed: SEED });

/** A `length_field_length`-byte length in either byte order. */
const lengthField = fc
  .record({ width: fc.integer({ min: 1, max: 8 }), bigEndian: fc.boolean(), value: fc.oneof(fc.nat(80), fc.constantFrom(0, 0x7f, 0xff, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff)) })
  .map(({ width, bigEndian, value }) => {
    const b = Buffer.alloc(width);
    let v = value;
    for (let i = 0; i < width; i++) {
      b[bigEndian ? width - 1 - i : i] = v & 0xff;
      v = Math.floor(v / 256);
    }
    return b;
  });

/** One piece of a hostile stream. */
const token: fc.Arbitrary<Buffer> = fc.oneof(
  { arbitrary: fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)), weight: 4 },
  { arbitrary: lengthField, weight: 3 },
  { arbitrary: fc.stringMatching(/^[1-9][0-9]{0,20} ?$/).map((s) => Buffer.from(s)), weight: 2 },
  {
    arbitrary: fc
      .constantFrom('\n', '\r\n', '\r', ' ', '\0', ',', '|', '<13>1 ', '<34>Oct 11 22:14:15 host su: ', '{"a":', '[', ']', '}', '"', '\\', '{"a":1.5}', '[{"b":[]}]', 'null')
      .map((s) => Buffer.from(s, 'latin1')),
    weight: 3,
  },
  { arbitrary: fc.integer({ min: 1, max: 400 }).map((n) => Buffer.from('{"x":' + '['.repeat(n) + ']'.repeat(n) + '}')), weight: 1 },
  { arbitrary: fc.constantFrom(Buffer.from([0xff, 0xfe, 0xfd]), Buffer.from([0xc3]), Buffer.from([0xf0, 0x9f, 0x98])), weight: 1 },
);

const stream = fc.array(token, { maxLength: 30 }).map((parts) => Buffer.concat(parts));

/** Cuts `input` at the given points (any order, duplicates allowed: empty chunks are input too). */
function cut(input: Buffer, points: readonly number[]): Buffer[] {
  const at = points.map((p) => p % (input.length + 1)).sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const p of at) {
    out.push(input.subarray(prev, p));
    prev = p;
  }
  out.push(input.subarray(prev));
  return out;
}

/** A framing group with a small limit (bytes: the source default), so hostile input crosses it often. */
const framing: fc.Arbitrary<{ framing: FramingConfig; limit: number }> = fc.integer({ min: 1, max: 64 }).chain((max) =>
  fc.oneof(
    fc.constant({ framing: { method: 'bytes' } as FramingConfig, limit: max }),
    fc.constant({ framing: { method: 'newline_delimited', newline_delimited: { max_length: max } } as FramingConfig, limit: max }),
    fc.constantFrom('\n', ',', '\0', '|').map((delimiter) => ({ framing: { method: 'character_delimited', character_delimited: { delimiter, max_length: max } } as FramingConfig, limit: max })),
    fc.constant({ framing: { method: 'octet_counting', octet_counting: { max_length: max } } as FramingConfig, limit: max }),
    fc
      .record({ width: fc.integer({ min: 1, max: 8 }), offset: fc.integer({ min: 0, max: 3 }), bigEndian: fc.boolean() })
      .map(({ width, offset, bigEndian }) => ({
        framing: {
          method: 'length_delimited',
          length_delimited: { max_frame_length: max, length_field_length: width, length_field_offset: offset, length_field_is_big_endian: bigEndian },
        } as FramingConfig,
        limit: max,
      })),
  ),
);

interface Outcome {
  frames: string[];
  reasons: FrameDiscard[];
  /** Most bytes the decoder held after any chunk. */
  held: number;
}

/** Feeds the chunks and EOF; every frame is checked against the limit as it is emitted. */
function run(d: Deframer, chunks: readonly Buffer[], limit: number, reasons: FrameDiscard[]): Outcome {
  const frames: string[] = [];
  let held = 0;
  const emit = (buf: Buffer, start: number, end: number) => {
    if (!(start >= 0 && start <= end && end <= buf.length)) throw new Error(`bad frame range [${start}, ${end}) of ${buf.length}`);
    if (end - start > limit) throw new Error(`frame of ${end - start} bytes over the limit ${limit}`);
    frames.push(buf.toString('latin1', start, end));
  };
  for (const c of chunks) {
    d.push(c, emit);
    held = Math.max(held, d.bufferedBytes);
  }
  d.end(emit);
  if (d.bufferedBytes !== 0) throw new Error(`${d.bufferedBytes} bytes held after EOF`);
  return { frames, reasons, held };
}

describe('lib/codecs fuzz: hostile streams', function () {
  this.timeout(120_000);

  it('every framing: no throw, held bytes within the limit, frames independent of chunking', () => {
    fc.assert(
      fc.property(framing, stream, fc.array(fc.nat(), { maxLength: 12 }), ({ framing: f, limit }, input, points) => {
        const whole: FrameDiscard[] = [];
        const chunked: FrameDiscard[] = [];
        const a = run(createDeframer(f, { onDiscard: (r) => whole.push(r), defaultMaxLength: limit }), [input], limit, whole);
        const b = run(createDeframer(f, { onDiscard: (r) => chunked.push(r), defaultMaxLength: limit }), cut(input, points), limit, chunked);
        // one byte over for an octet-counting line: its CR is not part of the frame
        expect(b.held).to.be.at.most(limit + 1);
        expect(a.held).to.be.at.most(limit + 1);
        expect(b.frames).to.deep.equal(a.frames);
        expect(b.reasons).to.deep.equal(a.reasons);
      }),
      params(),
    );
  });

  it('well-formed streams with frames over the limit: the others come out intact, each oversized one is counted once', () => {
    const payloads = fc.array(fc.uint8Array({ maxLength: 24 }).map((a) => Buffer.from(a)), { maxLength: 12 });
    const layout = fc.record({ width: fc.integer({ min: 1, max: 8 }), offset: fc.integer({ min: 0, max: 3 }), bigEndian: fc.boolean() });
    fc.assert(
      fc.property(payloads, layout, fc.integer({ min: 0, max: 24 }), fc.array(fc.nat(), { maxLength: 12 }), (frames, { width, offset, bigEndian }, max, points) => {
        const limit = Math.max(1, max);
        const header = (len: number) => {
          const h = Buffer.alloc(offset + width, 0xee);
          for (let i = 0, v = len; i < width; i++, v = Math.floor(v / 256)) h[offset + (bigEndian ? width - 1 - i : i)] = v & 0xff;
          return h;
        };
        const fitting = frames.filter((f) => f.length <= limit).map((f) => f.toString('latin1'));
        const over = frames.length - fitting.length;
        const check = (f: FramingConfig, input: Buffer, expected: string[], overCount: number) => {
          const reasons: FrameDiscard[] = [];
          const got = run(createDeframer(f, { onDiscard: (r) => reasons.push(r) }), cut(input, points), limit, reasons);
          expect(got.frames, JSON.stringify(f)).to.deep.equal(expected);
          expect(reasons, JSON.stringify(f)).to.deep.equal(new Array<FrameDiscard>(overCount).fill('frame_too_long'));
        };
        const ld = { max_frame_length: limit, length_field_length: width, length_field_offset: offset, length_field_is_big_endian: bigEndian };
        // a width-byte field cannot announce more than 256^width - 1 bytes
        if (frames.every((f) => f.length < 256 ** width)) check({ method: 'length_delimited', length_delimited: ld }, Buffer.concat(frames.flatMap((f) => [header(f.length), f])), fitting, over);
        const counted = frames.filter((f) => f.length > 0);
        check(
          { method: 'octet_counting', octet_counting: { max_length: limit } },
          Buffer.concat(counted.flatMap((f) => [Buffer.from(`${f.length} `), f])),
          counted.filter((f) => f.length <= limit).map((f) => f.toString('latin1')),
          counted.length - counted.filter((f) => f.length <= limit).length,
        );
        const lines = frames.map((f) => Buffer.from(f.toString('latin1').replace(/\n/g, ''), 'latin1'));
        check(
          { method: 'newline_delimited', newline_delimited: { max_length: limit } },
          Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')])),
          lines.filter((l) => l.length <= limit).map((l) => l.toString('latin1')),
          lines.filter((l) => l.length > limit).length,
        );
      }),
      params(),
    );
  });

  it('one decoder per connection survives many hostile streams in a row (state resets at EOF)', () => {
    fc.assert(
      fc.property(framing, fc.array(fc.tuple(stream, fc.array(fc.nat(), { maxLength: 6 })), { maxLength: 8 }), ({ framing: f, limit }, streams) => {
        const d = createDeframer(f, { defaultMaxLength: limit });
        for (const [input, points] of streams) {
          const fresh = run(createDeframer(f, { defaultMaxLength: limit }), [input], limit, []);
          expect(run(d, cut(input, points), limit, []).frames).to.deep.equal(fresh.frames);
        }
      }),
      params(Math.ceil(RUNS / 4)),
    );
  });

  for (const codec of DECODING_CODECS) {
    it(`deserializer ${codec}: a frame decodes to events or throws DecodeError, nothing else`, () => {
      const d = createDeserializer({ codec }, { sourceId: 'fuzz', sourceType: 'fuzz', timezone: 'UTC' });
      const stamp: Stamp = { timestamp: new Timestamp(0, 0), host: '127.0.0.1', port: 9 };
      fc.assert(
        fc.property(stream, fc.nat(), fc.nat(), (frame, x, y) => {
          const start = Math.min(x, y) % (frame.length + 1);
          const end = start + ((Math.max(x, y) - Math.min(x, y)) % (frame.length - start + 1));
          const out: Event[] = [];
          try {
            const size = d.decode(frame, start, end, stamp, out);
            expect(Number.isFinite(size) && size >= 0, `size ${size}`).to.equal(true);
          } catch (err) {
            if (!(err instanceof DecodeError)) throw err;
            // a failed frame leaves no events behind
            expect(out).to.have.length(0);
          }
        }),
        params(),
      );
    });
  }

  it('a JSON frame nested 100,000 deep is a counted decode error, and the next frame decodes', () => {
    const ctx = testSourceContext('socket');
    const decoder = streamDecoderFactory(ctx, { framing: { method: 'newline_delimited' }, decoding: { codec: 'json' }, sourceType: 'socket' })();
    const deep = '{"a":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}';
    const events = decoder.push(Buffer.from(`${deep}\n{"ok":1}\n`));
    expect(events.map((e) => (e as LogEvent).fields.ok)).to.deep.equal([1]);
    expect(ctx.metric('component_errors_total', { error_code: 'decoder_deserialize' })).to.equal(1);
  });

  it('stream decoder (framing + every codec): nothing escapes push or end, every discard is counted', () => {
    fc.assert(
      fc.property(framing, fc.constantFrom(...DECODING_CODECS), stream, fc.array(fc.nat(), { maxLength: 8 }), ({ framing: f, limit }, codec, input, points) => {
        const ctx = testSourceContext('socket');
        const decoder = streamDecoderFactory(ctx, { framing: f, decoding: { codec }, sourceType: 'socket', defaultMaxLength: limit })();
        let discards = 0;
        const reference = createDeframer(f, { onDiscard: () => discards++, defaultMaxLength: limit });
        reference.push(input, () => {});
        reference.end(() => {});
        for (const c of cut(input, points)) decoder.push(c);
        decoder.end();
        expect(ctx.metric('component_errors_total', { error_code: 'decoder_frame' })).to.equal(discards);
      }),
      params(Math.ceil(RUNS / 2)),
    );
  });
});
