import { expect } from 'chai';
import { METRIC_EVENT, hecBody, hecTime, sortedJson, writeEnvelope } from '../../../../connectors/shared/hec/envelope.js';
import { Float, Timestamp } from '../../../../lib/value.js';
import { parseHecBody } from '../../../peers/hec-protocol.js';

describe('connectors/shared/hec: the HEC body writer', () => {
  it('writes the members in Vector order and leaves absent ones out', () => {
    const all = writeEnvelope({ event: METRIC_EVENT, fields: '{}', time: 1.5, host: 'h', index: 'i', source: 's', sourcetype: 't' });
    expect(all).to.equal('{"event":"metric","fields":{},"time":1.5,"host":"h","index":"i","source":"s","sourcetype":"t"}');
    const bare = writeEnvelope({ event: '{"a":1}', fields: '{}', time: undefined, host: undefined, index: undefined, source: undefined, sourcetype: 't"q' });
    expect(bare).to.equal('{"event":{"a":1},"fields":{},"sourcetype":"t\\"q"}');
  });

  it('a body is the envelopes back to back, which the strict reader splits again', () => {
    const a = writeEnvelope({ event: METRIC_EVENT, fields: '{"metric_name":"a","_value":1}', time: 2, host: undefined, index: undefined, source: undefined, sourcetype: undefined });
    const body = hecBody([{ text: a }, { text: a }]);
    expect(body.toString()).to.equal(a + a);
    const read = parseHecBody(body.toString(), true);
    expect(read.error).to.equal(undefined);
    expect(read.envelopes.map((e) => e.time)).to.deep.equal([2, 2]);
  });

  it('time is seconds with milliseconds, finer digits dropped; now without a timestamp', () => {
    expect(hecTime(new Timestamp(1_700_000_000_123, 999_999), 0)).to.equal(1700000000.123);
    expect(hecTime(undefined, 1_700_000_005_250.7)).to.equal(1700000005.25);
  });

  it('sortedJson sorts keys at every level, skips one top-level key, writes non-finite numbers as null', () => {
    const v = { b: { z: 1, a: [new Float(2), { y: true, x: null }] }, a: 'x', timestamp: new Timestamp(0), n: NaN, i: Infinity };
    expect(sortedJson(v, 'timestamp')).to.equal('{"a":"x","b":{"a":[2,{"x":null,"y":true}],"z":1},"i":null,"n":null}');
    expect(sortedJson({ t: new Timestamp(1_700_000_000_000) })).to.equal('{"t":"2023-11-14T22:13:20Z"}');
    // the skipped key is only skipped at the top
    expect(sortedJson({ k: { timestamp: 1 } }, 'timestamp')).to.equal('{"k":{"timestamp":1}}');
  });
});
