/** The http sink's bodies, written straight into one Buffer from the encoded events. */
import { expect } from 'chai';
import { createHttpEncoder } from '../../../../connectors/sinks/http/encoder.js';
import { logEvent } from '../../../../lib/event.js';
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

  it('an empty batch is an empty body (json: the empty array)', () => {
    const encoder = createHttpEncoder(httpConfig('http://127.0.0.1:1/', { encoding: { codec: 'ndjson' } }));
    expect(encoder.body([]).length).to.equal(0);
    const arrays = createHttpEncoder(httpConfig('http://127.0.0.1:1/', { encoding: { codec: 'json' } }));
    expect(arrays.body([]).toString()).to.equal('[]');
  });
});
