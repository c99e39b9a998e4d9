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

  it("joins a pipeline worker's records (bytes) and texts alike, in every framing", () => {
    const bytes = Buffer.from('xx{"m":"\u00e9"}yy{"m":"b"}', 'utf8');
    const first = { bytes, start: 2, end: 2 + Buffer.byteLength('{"m":"\u00e9"}') };
    const second = { bytes, start: first.end + 2, end: bytes.length };
    const parts = [first, '{"m":"c"}', second];
    const joined = (codec: 'json' | 'text', framing = {}) => createObjectBodyEncoder({ codec }, framing).join(parts);
    expect(JSON.parse(joined('json').toString())).to.deep.equal([{ m: '\u00e9' }, { m: 'c' }, { m: 'b' }]);
    expect(joined('text').toString()).to.equal('{"m":"\u00e9"}\n{"m":"c"}\n{"m":"b"}');
    const framed = joined('text', { method: 'length_delimited' });
    expect(framed.readUInt32BE(0)).to.equal(first.end - first.start);
    expect(framed.subarray(4, 4 + first.end - first.start).toString()).to.equal('{"m":"\u00e9"}');
    expect(framed.length).to.equal(3 * 4 + (first.end - first.start) + 9 + (second.end - second.start));
    expect(joined('text', { method: 'octet_counting' }).toString()).to.equal('10 {"m":"\u00e9"}9 {"m":"c"}9 {"m":"b"}');
  });
});
