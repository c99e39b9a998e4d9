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
      const want = encoder.body(items.map((i) => (i instanceof EncodedLogEvent ? { event: i, size: i.size, key: undefined, text: i.text } : i)));
      expect(encoder.body(items).toString('utf8'), codec).to.equal(want.toString('utf8'));
      expect(want.toString('utf8')).to.include(`${texts[0]}${codec === 'json' ? ',' : '\n'}${texts[1]}`);
    }
  });

  it('an empty batch is an empty body (json: the empty array)', () => {
    const encoder = createHttpEncoder(httpConfig('http://127.0.0.1:1/', { encoding: { codec: 'ndjson' } }));
    expect(encoder.body([]).length).to.equal(0);
    const arrays = createHttpEncoder(httpConfig('http://127.0.0.1:1/', { encoding: { codec: 'json' } }));
    expect(arrays.body([]).toString()).to.equal('[]');
  });
});
