/** The http sink's bodies, written straight into one Buffer from the encoded events. */
import { expect } from 'chai';
import { createHttpEncoder } from '../../../../connectors/sinks/http/encoder.js';
import { EncodedLogEvent, EventMetadata, logEvent } from '../../../../lib/event.js';
import { httpConfig } from './harness.js';

const messages = ['plain', 'ünïcödé ✓', 'emoji 🚀 and a lone \ud800 surrogate', ''];
const events = () => messages.map((m) => logEvent({ message: m }));

const bodyOf = (codec: 'json' | 'ndjson' | 'text', extra: Record<string, unknown> = {}) => {
  const encoder = createHttpEncoder(httpConfig('http://127.0.0.1:1/', { encoding: { codec }, ...extra }));
  return encoder.body(events().map((e) => encoder.encode(e))).toString('utf8');
};

describe('connectors/sinks/http: request bodies', () => {
  const json = messages.map((m) => JSON.stringify({ message: m }));

  it('ndjson: one event per line, no newline after the last', () => {
    expect(bodyOf('ndjson')).to.equal(json.join('\n'));
  });

  it('json: an array inside payload_prefix and payload_suffix', () => {
    expect(bodyOf('json')).to.equal(`[${json.join(',')}]`);
    expect(bodyOf('json', { payload_prefix: '{"data":', payload_suffix: ',"n":"é"}' })).to.equal(`{"data":[${json.join(',')}],"n":"é"}`);
  });

  it('text: every message followed by a newline, multi-byte text intact', () => {
    expect(bodyOf('text')).to.equal(messages.map((m) => m.replace('\ud800', '\ufffd') + '\n').join(''));
  });

  it('records a worker encoded: runs of one answer copied whole, other items and foreign gaps kept apart', () => {
    for (const codec of ['json', 'ndjson', 'text'] as const) {
      const encoder = createHttpEncoder(httpConfig('http://127.0.0.1:1/', { encoding: { codec } }));
      const sep = encoder.separator!;
      const texts = json;
      // one answer: records with the separator between them; a second answer whose gap byte is not the separator
      const answer = Buffer.from(texts.join(sep));
      const other = Buffer.from(`${texts[0]}|${texts[1]}`);
      const meta = new EventMetadata('in', 'socket');
      const records: EncodedLogEvent[] = [];
      let at = 0;
      for (const t of texts) {
        const n = Buffer.byteLength(t);
        records.push(new EncodedLogEvent(meta, answer, at, at + n, 1));
        at += n + 1;
      }
      const first = Buffer.byteLength(texts[0]!);
      const foreign = [new EncodedLogEvent(meta, other, 0, first, 1), new EncodedLogEvent(meta, other, first + 1, other.length, 1)];
      const plain = encoder.encode(logEvent({ message: 'plain' }));
      const items = [records[0]!, records[1]!, plain, records[2]!, records[3]!, ...foreign];
      const all = [texts[0], texts[1], plain.text, texts[2], texts[3], texts[0], texts[1]];
      const want = codec === 'json' ? `[${all.join(',')}]` : codec === 'ndjson' ? all.join('\n') : all.map((t) => t + '\n').join('');
      expect(encoder.body(items).toString('utf8'), codec).to.equal(want);
    }
  });

  it("the sink's own records: one after another in its buffer, each followed by the separator, a new buffer when one is full", () => {
    const encoder = createHttpEncoder(httpConfig('http://127.0.0.1:1/', { encoding: { codec: 'ndjson' } }));
    const long = 'x'.repeat(3000);
    const items = Array.from({ length: 200 }, (_, i) => encoder.encode(logEvent({ message: `${i} ${long}` })));
    for (let i = 1; i < items.length; i++) {
      const [a, b] = [items[i - 1]!, items[i]!];
      if (a.bytes === b.bytes) {
        expect(b.start).to.equal(a.end + 1);
        expect(a.bytes[a.end]).to.equal(0x0a);
      }
    }
    // 200 records of 3 KB do not fit one 256 KiB buffer: the full one is left to its records
    expect(new Set(items.map((x) => x.bytes)).size).to.be.greaterThan(1);
    expect(items[0]!.text).to.equal(JSON.stringify({ message: `0 ${long}` }));
    expect(encoder.body(items).toString()).to.equal(items.map((x) => x.text).join('\n'));
  });

  it('a full buffer is written again only once every record in it was released', () => {
    const encoder = createHttpEncoder(httpConfig('http://127.0.0.1:1/', { encoding: { codec: 'ndjson' } }));
    const long = 'y'.repeat(2000);
    const batch = (from: number) => Array.from({ length: 300 }, (_, i) => encoder.encode(logEvent({ message: `${from + i} ${long}` })));
    const first = batch(0); // about 600 KB: three buffers
    const kept = first.slice(0, 150);
    const texts = kept.map((x) => x.text);
    encoder.release(first.slice(150)); // the first buffers' records are not all released
    const second = batch(1000);
    // nothing still held was written over
    expect(kept.map((x) => x.text)).to.deep.equal(texts);
    const firstBuffers = new Set(first.map((x) => x.bytes));
    const heldBuffers = new Set(kept.map((x) => x.bytes));
    for (const x of second) expect(heldBuffers.has(x.bytes)).to.equal(false);
    // once released, a full buffer takes new records
    encoder.release(kept);
    encoder.release(second);
    const third = batch(2000);
    expect(third.some((x) => firstBuffers.has(x.bytes))).to.equal(true);
    expect(third[0]!.text).to.equal(JSON.stringify({ message: `2000 ${long}` }));
    expect(encoder.body(third).toString()).to.equal(third.map((_, i) => JSON.stringify({ message: `${2000 + i} ${long}` })).join('\n'));
  });

  it('an event the codec cannot encode leaves nothing behind in the buffer', () => {
    const encoder = createHttpEncoder(httpConfig('http://127.0.0.1:1/', { encoding: { codec: 'ndjson' } }));
    const a = encoder.encode(logEvent({ message: 'a' }));
    const cyclic: Record<string, unknown> = { message: 'b' };
    cyclic.self = cyclic;
    expect(() => encoder.encode(logEvent(cyclic as never))).to.throw();
    const c = encoder.encode(logEvent({ message: 'c' }));
    expect(encoder.body([a, c]).toString()).to.equal('{"message":"a"}\n{"message":"c"}');
    expect(c.start).to.equal(a.end + 1);
  });

  it('an empty batch is an empty body (json: the empty array)', () => {
    const encoder = createHttpEncoder(httpConfig('http://127.0.0.1:1/', { encoding: { codec: 'ndjson' } }));
    expect(encoder.body([]).length).to.equal(0);
    const arrays = createHttpEncoder(httpConfig('http://127.0.0.1:1/', { encoding: { codec: 'json' } }));
    expect(arrays.body([]).toString()).to.equal('[]');
  });
});
