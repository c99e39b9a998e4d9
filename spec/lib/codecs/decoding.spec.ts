import { expect } from 'chai';
import * as v from 'valibot';
import { type Event, type LogEvent, eventSize } from '../../../lib/event.js';
import { DecodeError, type Stamp, createDeserializer, decodingSchema, parseSyslog } from '../../../lib/codecs/index.js';
import { Float, Timestamp } from '../../../lib/value.js';

const NOW = new Timestamp(Date.UTC(2024, 4, 1, 12, 0, 0));
const stamp = (): Stamp => ({ timestamp: NOW, host: '10.0.0.5', port: 5140 });
const decode = (codec: 'bytes' | 'json' | 'syslog', text: string, opts: { portKey?: string; hostKey?: string } = {}) => {
  const d = createDeserializer({ codec }, { sourceId: 'in', sourceType: 'socket', ...opts });
  const out: Event[] = [];
  const buf = Buffer.from('xx' + text + 'yy');
  d.decode(buf, 2, buf.length - 2, stamp(), out);
  return out as LogEvent[];
};

describe('lib/codecs decoding', () => {
  it('bytes: the frame becomes the message with the source fields', () => {
    const [e] = decode('bytes', 'héllo', { portKey: 'port' });
    expect(e!.fields).to.deep.equal({ message: 'héllo', timestamp: NOW, host: '10.0.0.5', port: 5140, source_type: 'socket' });
    expect(Object.keys(e!.fields)).to.deep.equal(['message', 'timestamp', 'host', 'port', 'source_type']);
    expect(e!.meta.sourceId).to.equal('in');
    expect(e!.meta.sourceType).to.equal('socket');
  });

  it('decode returns the same size estimate as eventSize, for every codec', () => {
    for (const [codec, text, portKey] of [
      ['bytes', 'some message', 'port'],
      ['bytes', 'x', undefined],
      ['json', '{"a":"b","n":[1,2]}', 'port'],
      ['syslog', '<13>1 - h a - - - hi', undefined],
    ] as const) {
      const d = createDeserializer({ codec }, { sourceId: 'in', sourceType: 'socket', portKey });
      const out: Event[] = [];
      const size = d.decode(Buffer.from(text), 0, text.length, stamp(), out);
      expect(size, codec).to.equal(eventSize(out[0]!));
    }
  });

  it('bytes: custom host key and log schema keys', () => {
    const d = createDeserializer(
      { codec: 'bytes' },
      { sourceId: 'in', sourceType: 'stdin', hostKey: 'peer', logSchema: { message_key: 'msg', timestamp_key: 'ts', host_key: 'host', source_type_key: 'st' } },
    );
    const out: Event[] = [];
    d.decode(Buffer.from('x'), 0, 1, stamp(), out);
    expect((out[0] as LogEvent).fields).to.deep.equal({ msg: 'x', ts: NOW, peer: '10.0.0.5', st: 'stdin' });
  });

  it('json: object keys become fields; own host and timestamp win; floats stay floats', () => {
    const [e] = decode('json', '{"host":"mine","n":2,"f":2.5,"deep":{"g":0.5},"l":[1.25]}');
    expect(e!.fields).to.deep.equal({ host: 'mine', n: 2, f: new Float(2.5), deep: { g: new Float(0.5) }, l: [new Float(1.25)], timestamp: NOW, source_type: 'socket' });
  });

  it('json: an array of objects is one event each; empty frame is no event', () => {
    expect(decode('json', '[{"a":1},{"a":2}]').map((e) => e.fields.a)).to.deep.equal([1, 2]);
    expect(decode('json', '')).to.deep.equal([]);
  });

  for (const bad of ['not json', '"str"', '42', 'null', '[1]', '{"a":']) {
    it(`json: ${bad} is a decode error`, () => {
      expect(() => decode('json', bad)).to.throw(DecodeError);
    });
  }

  it('syslog 5424 with structured data', () => {
    const [e] = decode('syslog', '<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog 1234 ID47 [exampleSDID@32473 iut="3" eventSource="App\\"x\\]"][other a="b"] \uFEFFAn application event');
    expect(e!.fields).to.deep.equal({
      message: 'An application event',
      timestamp: Timestamp.parse('2003-10-11T22:14:15.003Z'),
      hostname: 'mymachine.example.com',
      severity: 'notice',
      facility: 'local4',
      version: 1,
      appname: 'evntslog',
      msgid: 'ID47',
      procid: 1234,
      'exampleSDID@32473': { iut: '3', eventSource: 'App"x]' },
      other: { a: 'b' },
      host: '10.0.0.5',
      source_type: 'socket',
    });
  });

  it('syslog 5424 with nil values', () => {
    const m = parseSyslog('<13>1 - - - - - - hello');
    expect(m).to.deep.equal({ facility: 'user', severity: 'notice', version: 1, message: 'hello' });
  });

  it('syslog 3164 with host and tag[pid]', () => {
    const m = parseSyslog("<34>Oct 11 22:14:15 mymachine su[77]: 'su root' failed", { now: () => Date.UTC(2024, 4, 1) });
    expect(m).to.deep.equal({
      facility: 'auth',
      severity: 'crit',
      timestamp: new Timestamp(Date.UTC(2024, 9, 11, 22, 14, 15)),
      hostname: 'mymachine',
      appname: 'su',
      procid: 77,
      message: "'su root' failed",
    });
  });

  it('syslog 3164 without a tag; December read in January is last year', () => {
    const m = parseSyslog('<13>Dec  5 17:32:18 10.0.0.99 Use the BFG!', { now: () => Date.UTC(2025, 0, 2) });
    expect(m.hostname).to.equal('10.0.0.99');
    expect(m.appname).to.equal(undefined);
    expect(m.message).to.equal('Use the BFG!');
    expect(m.timestamp!.toString()).to.equal('2024-12-05T17:32:18Z');
  });

  it('syslog 3164 timestamps are read in the configured zone', () => {
    const m = parseSyslog('<13>Jul  4 12:00:00 h app: x', { now: () => Date.UTC(2024, 4, 1), timezone: 'America/New_York' });
    expect(m.timestamp!.toString()).to.equal('2024-07-04T16:00:00Z');
    const utc = parseSyslog('<13>Jul  4 12:00:00.250 h app: x', { now: () => Date.UTC(2024, 4, 1) });
    expect(utc.timestamp!.toString()).to.equal('2024-07-04T12:00:00.250Z');
  });

  it('syslog: text without a header is the message; the receive time fills in', () => {
    const [e] = decode('syslog', 'just text');
    expect(e!.fields).to.deep.equal({ message: 'just text', timestamp: NOW, host: '10.0.0.5', source_type: 'socket' });
  });

  it('decodingSchema defaults to bytes and lists allowed codecs', () => {
    const s = decodingSchema(['bytes', 'json']);
    expect(v.parse(s, undefined)).to.deep.equal({ codec: 'bytes' });
    expect(v.parse(s, {})).to.deep.equal({ codec: 'bytes' });
    const r = v.safeParse(s, { codec: 'syslog' });
    expect(r.success).to.equal(false);
    expect(r.issues![0].expected).to.equal('("bytes" | "json")');
  });
});
