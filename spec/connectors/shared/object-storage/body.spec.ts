import { expect } from 'chai';
import { createObjectBodyEncoder } from '../../../../connectors/shared/object-storage/index.js';
import { logEvent } from '../../../../lib/event.js';

const events = [logEvent({ message: 'a', n: 1 }), logEvent({ message: 'b', n: 2 })];
const gelfEvents = [logEvent({ message: 'a', host: 'h' }), logEvent({ message: 'b', host: 'h' })];
const body = (codec: 'json' | 'ndjson' | 'text' | 'gelf', framing = {}) => {
  const enc = createObjectBodyEncoder({ codec }, framing);
  return { text: enc.join(events.map(enc.encode)).toString('utf8'), type: enc.contentType, method: enc.method };
};

describe('connectors/shared/object-storage: object bodies', () => {
  it('json without framing: one JSON array, application/json', () => {
    expect(body('json')).to.deep.equal({ text: '[{"message":"a","n":1},{"message":"b","n":2}]', type: 'application/json', method: 'character_delimited' });
    expect(JSON.parse(body('json').text)).to.have.length(2);
  });

  it('json with newline framing and ndjson: JSON lines without a trailing newline, application/x-ndjson', () => {
    const lines = '{"message":"a","n":1}\n{"message":"b","n":2}';
    expect(body('json', { method: 'newline_delimited' })).to.deep.equal({ text: lines, type: 'application/x-ndjson', method: 'newline_delimited' });
    expect(body('ndjson').text).to.equal(lines);
  });

  it('text: messages joined by newline; character_delimited uses its delimiter between events only', () => {
    expect(body('text')).to.deep.equal({ text: 'a\nb', type: 'text/plain', method: 'newline_delimited' });
    expect(body('text', { method: 'character_delimited', character_delimited: { delimiter: '|' } }).text).to.equal('a|b');
    expect(body('text', { method: 'bytes' }).text).to.equal('ab');
    const gelf = createObjectBodyEncoder({ codec: 'gelf' });
    expect(gelf.join(gelfEvents.map(gelf.encode)).toString().split('\0')).to.have.length(2);
  });

  it('length_delimited: a u32 big-endian length before every event, the last included', () => {
    const enc = createObjectBodyEncoder({ codec: 'text' }, { method: 'length_delimited' });
    const b = enc.join(events.map(enc.encode));
    expect([...b]).to.deep.equal([0, 0, 0, 1, 97, 0, 0, 0, 1, 98]);
  });

  it('an empty message still takes its place; the native codec is refused at build', () => {
    const enc = createObjectBodyEncoder({ codec: 'text' });
    expect(enc.join([enc.encode(logEvent({ other: 1 })), 'x']).toString()).to.equal('\nx');
    expect(() => createObjectBodyEncoder({ codec: 'native' })).to.throw(/binary/);
  });
});
