/**
 * Frames decoded as slices of a shared window are the frames' own UTF-8 text, whatever the bytes
 * (ASCII, multi-byte, invalid, cut sequences), however they are split and when a buffer is refilled.
 * WEIR_FUZZ_SEED=<n> to vary or replay a run.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { TextWindow, WINDOW_BYTES } from '../../../lib/codecs/text-window.js';
import { streamDecoderFactory } from '../../../lib/codecs/index.js';
import type { LogEvent } from '../../../lib/event.js';
import { testSourceContext } from '../../connectors/sources/source-context.js';

const seed = process.env.WEIR_FUZZ_SEED ? Number(process.env.WEIR_FUZZ_SEED) : 20261128;

/** Bytes of log-like text: mostly ASCII, with multi-byte characters and invalid bytes mixed in. */
const piece: fc.Arbitrary<Buffer> = fc.oneof(
  { arbitrary: fc.string({ unit: fc.constantFrom(...'abc xyz=0123456789-'), maxLength: 300 }).map((s) => Buffer.from(s, 'latin1')), weight: 6 },
  { arbitrary: fc.constantFrom('é', '✓', '🚀', '\u00ff').map((s) => Buffer.from(s, 'utf8')), weight: 1 },
  { arbitrary: fc.constantFrom(0x80, 0xc3, 0xe2, 0xf0, 0xff).map((b) => Buffer.from([b])), weight: 1 },
  { arbitrary: fc.constant(Buffer.from('x'.repeat(WINDOW_BYTES))), weight: 1 },
);

describe('lib/codecs/text-window', () => {
  it('decodes every frame as utf8Slice does, for any bytes and any cut into frames', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 30 }), (pieces, cuts) => {
        const buf = Buffer.concat(pieces);
        // frames in order, as a deframer emits them, with gaps where a delimiter would be
        const points = [...new Set(cuts.map((c) => c % (buf.length + 1)))].sort((a, b) => a - b);
        const w = new TextWindow();
        let start = 0;
        for (const p of [...points, buf.length]) {
          if (p < start) continue;
          expect(w.decode(buf, start, p)).to.equal(buf.toString('utf8', start, p));
          start = p + 1;
        }
      }),
      { seed, numRuns: 500 },
    );
  });

  it('a refilled buffer is decoded anew after reset', () => {
    const buf = Buffer.from('first line\nsecond line\n');
    const w = new TextWindow();
    expect(w.decode(buf, 0, 10)).to.equal('first line');
    buf.write('FIRST LINE\nSECOND LINE\n');
    w.reset();
    expect(w.decode(buf, 11, 22)).to.equal('SECOND LINE');
  });

  it('a frame holds on to at most one window of text, not the whole chunk', () => {
    // V8 keeps a slice's parent alive; what bounds it is the window's length, checked through the
    // slices' offsets: frames further apart than a window never come from the same decode
    const line = 'y'.repeat(199) + '\n';
    const buf = Buffer.from(line.repeat(330));
    const w = new TextWindow();
    const decodes: number[] = [];
    const original = (buf as unknown as { utf8Slice(s: number, e: number): string }).utf8Slice;
    (buf as unknown as { utf8Slice(s: number, e: number): string }).utf8Slice = function (s, e) {
      decodes.push(e - s);
      return original.call(this, s, e);
    };
    for (let i = 0; i < 330; i++) expect(w.decode(buf, i * 200, i * 200 + 199)).to.equal('y'.repeat(199));
    expect(Math.max(...decodes)).to.be.at.most(WINDOW_BYTES);
    // one decode per window of lines, not one per line
    expect(decodes.length).to.be.at.most(Math.ceil((330 * 200) / (WINDOW_BYTES - 200)));
  });

  it('the stream decoder resets its window at every chunk', () => {
    const decoder = streamDecoderFactory(testSourceContext('socket'), { framing: { method: 'newline_delimited' }, decoding: { codec: 'bytes' }, sourceType: 'socket' })();
    const chunk = Buffer.from('aaaa\nbbbb\n');
    const first = decoder.push(chunk).map((e) => (e as LogEvent).fields.message);
    chunk.write('cccc\ndddd\n');
    const second = decoder.push(chunk).map((e) => (e as LogEvent).fields.message);
    expect([...first, ...second]).to.deep.equal(['aaaa', 'bbbb', 'cccc', 'dddd']);
  });
});
