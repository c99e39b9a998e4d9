/** One buffer from many texts: the same bytes as joining them first, whatever they hold. */
import { expect } from 'chai';
import { ScratchBuffer, utf8Join, utf8JoinInto, utf8Slice, utf8Write } from '../../lib/utf8.js';

describe('lib/utf8', () => {
  const cases: string[][] = [
    [],
    [''],
    ['', '', ''],
    ['plain ascii', 'second line'],
    ['ünïcödé ✓', 'emoji 🚀', 'a lone \ud800 surrogate and \udfff another', 'x'.repeat(10_000)],
    ['\u00ff\u0100\u07ff\u0800\uffff'],
    // joined with a delimiter, a text's lone high surrogate must not pair with the next text's low one
    ['end \ud83d', '\ude80 start', 'plain'],
  ];

  it('utf8Join: the bytes of Buffer.from(texts.join(d) + d), each text followed by the delimiter', () => {
    for (const texts of cases) {
      expect(utf8Join(texts, 0x0a).equals(Buffer.from(texts.map((t) => t + '\n').join(''), 'utf8')), JSON.stringify(texts)).to.equal(true);
      expect(utf8Join(texts, 0).equals(Buffer.from(texts.map((t) => t + '\0').join(''), 'utf8'))).to.equal(true);
      expect(utf8Join(texts, undefined).equals(Buffer.concat(texts.map((t) => Buffer.from(t, 'utf8'))))).to.equal(true);
    }
  });

  it('utf8Join: keeps a buffer of the exact size, not the worst-case one it wrote into', () => {
    const out = utf8Join(['a'.repeat(20_000), 'dé'], 0x0a);
    expect(out.length).to.equal(20_005);
    expect(out.toString()).to.equal(`${'a'.repeat(20_000)}\ndé\n`);
    // 3 bytes per UTF-16 unit were reserved while writing; what is returned owns only its bytes
    expect(out.buffer.byteLength).to.equal(20_005);
    // and is not overwritten by the next join
    utf8Join(['b'.repeat(30_000)], 0x0a);
    expect(out.toString()).to.equal(`${'a'.repeat(20_000)}\ndé\n`);
  });

  it('utf8JoinInto: the same bytes as utf8Join, in the scratch buffer, which grows for a longer join', () => {
    const scratch = new ScratchBuffer();
    for (const texts of cases) {
      const view = utf8JoinInto(scratch, texts, 0x0a);
      expect(view.equals(utf8Join(texts, 0x0a)), JSON.stringify(texts)).to.equal(true);
      expect(view.buffer).to.equal(scratch.take(0).buffer);
    }
    const long = utf8JoinInto(scratch, ['z'.repeat(100_000)], 0x0a);
    expect(long.length).to.equal(100_001);
    expect(scratch.take(0).buffer, 'kept for the next join').to.equal(long.buffer);
  });

  it('utf8Write and utf8Slice round-trip at an offset', () => {
    const buf = Buffer.alloc(64);
    const n = utf8Write(buf, 'héllo 🚀', 3);
    expect(n).to.equal(Buffer.byteLength('héllo 🚀'));
    expect(utf8Slice(buf, 3, 3 + n)).to.equal('héllo 🚀');
  });
});
