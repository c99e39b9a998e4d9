/** JSON written as bytes: exactly the UTF-8 of the text form, for every kind of value. */
import { expect } from 'chai';
import fc from 'fast-check';
import { Utf8Writer, writeJSONDefault } from '../../../lib/codecs/json-bytes.js';
import { valueToJSONText } from '../../../lib/codecs/json.js';
import { createSerializer } from '../../../lib/codecs/encoding.js';
import { logEvent } from '../../../lib/event.js';
import { Float, Timestamp, type Value } from '../../../lib/value.js';

/** The bytes writeJSONDefault gives, through a writer that starts small so it has to grow. */
function bytesOf(v: Value): Buffer {
  const w = new Utf8Writer(4);
  w.ascii('>');
  writeJSONDefault(w, v);
  return w.detach(Buffer.alloc(4)).subarray(1);
}

const same = (v: Value): void => void expect(bytesOf(v).equals(Buffer.from(valueToJSONText(v), 'utf8')), valueToJSONText(v)).to.equal(true);

describe('Utf8Writer.detach', () => {
  it('hands over the bytes where they were written and goes on in the next buffer', () => {
    const first = Buffer.allocUnsafeSlow(16);
    const w = new Utf8Writer(16);
    w.utf8('héllo');
    const out = w.detach(first);
    expect(out.toString('utf8')).to.equal('héllo');
    w.utf8('next record, longer than sixteen bytes');
    expect(out.toString('utf8'), 'the handed-over bytes are not written again').to.equal('héllo');
    const again = w.detach(Buffer.allocUnsafeSlow(8));
    expect(again.toString('utf8')).to.equal('next record, longer than sixteen bytes');
    expect(w.pos).to.equal(0);
  });
});

describe('lib/codecs/json-bytes', () => {
  it('the UTF-8 of the text form: strings that need escaping, lone surrogates, numbers, timestamps, floats, regexes', () => {
    for (const v of [
      'plain',
      '',
      'quote " backslash \\ newline \n tab \t nul \u0000 esc \u001b',
      'ünïcödé ✓ emoji 🚀',
      'a lone \ud800 high and \udfff low surrogate',
      'x'.repeat(5000),
      0,
      -0,
      1.5,
      -12345678901234,
      1e21,
      NaN,
      Infinity,
      true,
      false,
      null,
      new Float(1),
      new Float(0.1),
      new Float(NaN),
      new Timestamp(1_700_000_000_123, 456_789),
      new Timestamp(0, 0),
      /a"b\\c\u2028/g,
      [1, 'two', [null, new Float(3)], {}],
      [undefined as unknown as Value, 1],
      { message: 'm', nested: { deep: [1, { x: 'y' }] }, skipped: undefined as unknown as Value, 'odd "key"\n': 1, ünï: 'k' },
      { toJSON: () => 'custom' } as unknown as Value,
    ] as Value[])
      same(v);
  });

  it('finds a character to escape at any position and alignment of a long string', () => {
    for (const bad of ['"', '\\', '\n', '\u001f', '\u0000', '\u007f', 'é', '\ud800']) {
      for (let pad = 0; pad < 4; pad++) {
        for (let at = 0; at < 40; at++) {
          const s = 'a'.repeat(at) + bad + 'b'.repeat(40 - at);
          same(['x'.repeat(pad), s]);
        }
      }
    }
  });

  it('the UTF-8 of the text form for arbitrary values', () => {
    const leaf: fc.Arbitrary<Value> = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: 'grapheme' }),
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.double().map((d) => new Float(d)),
      fc.tuple(fc.integer({ min: -8_000_000_000_000, max: 8_000_000_000_000 }), fc.integer({ min: 0, max: 999_999 })).map(([ms, ns]) => new Timestamp(ms, ns)),
    );
    const { value } = fc.letrec<{ value: Value }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(fc.string({ unit: 'binary', maxLength: 6 }), tie('value'), { maxKeys: 4 }) as fc.Arbitrary<Value>,
      ),
    }));
    fc.assert(
      fc.property(value, (v) => {
        same(v);
      }),
      { numRuns: 500 },
    );
  });

  it("a serializer writes the same bytes as its text, for every codec that writes text", () => {
    const e = logEvent({ message: 'line "one" ✓', timestamp: new Timestamp(1_700_000_000_000, 5), n: 3, f: new Float(2), tags: ['a', 'b'] });
    for (const encoding of [
      { codec: 'json' as const },
      { codec: 'ndjson' as const },
      { codec: 'json' as const, timestamp_format: 'unix_ms' as const },
      { codec: 'json' as const, json: { pretty: true } },
      { codec: 'json' as const, except_fields: ['n'] },
      { codec: 'text' as const },
      { codec: 'logfmt' as const },
    ]) {
      const s = createSerializer(encoding);
      const w = new Utf8Writer(8);
      s.writeText(e, w);
      expect(w.detach(Buffer.alloc(4)).toString('utf8'), JSON.stringify(encoding)).to.equal(s.serializeText(e));
    }
  });
});
