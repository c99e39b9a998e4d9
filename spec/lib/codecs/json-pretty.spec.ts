import { expect } from 'chai';
import { createSerializer } from '../../../lib/codecs/encoding.js';
import { prettyJsonText } from '../../../lib/codecs/json.js';
import { logEvent } from '../../../lib/event.js';
import { Float, Timestamp } from '../../../lib/value.js';

describe('encoding.json.pretty', () => {
  it('lays out compact JSON with two-space indentation, as Vector\'s pretty JSON', () => {
    const compact = '{"a":1,"b":[true,null,{"c":"x,y:{z}"}],"e":{},"f":[],"g":"q\\"uote\\\\"}';
    expect(prettyJsonText(compact)).to.equal(
      ['{', '  "a": 1,', '  "b": [', '    true,', '    null,', '    {', '      "c": "x,y:{z}"', '    }', '  ],', '  "e": {},', '  "f": [],', '  "g": "q\\"uote\\\\"', '}'].join('\n'),
    );
    expect(JSON.parse(prettyJsonText(compact))).to.deep.equal(JSON.parse(compact));
  });

  it('keeps every digit of numbers the compact form had (unix_ns timestamps)', () => {
    const e = logEvent({ t: new Timestamp(1_700_000_000_123, 456_789), n: new Float(1.5) });
    const s = createSerializer({ codec: 'json', timestamp_format: 'unix_ns', json: { pretty: true } });
    expect(s.serializeText(e)).to.equal('{\n  "t": 1700000000123456789,\n  "n": 1.5\n}');
  });

  it('is off by default and applies only to the json codec', () => {
    const e = logEvent({ message: 'm', a: { b: 1 } });
    expect(createSerializer({ codec: 'json' }).serializeText(e)).to.equal('{"message":"m","a":{"b":1}}');
    expect(createSerializer({ codec: 'json', json: { pretty: false } }).serializeText(e)).to.equal('{"message":"m","a":{"b":1}}');
    expect(createSerializer({ codec: 'ndjson', json: { pretty: true } }).serializeText(e)).to.equal('{"message":"m","a":{"b":1}}');
  });
});
