import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import { cutKey, createStreamEncoder } from '../../../../connectors/sinks/cloudw_stream/encoder.js';
import { gzipRecord } from '../../../../connectors/sinks/cloudw_stream/request.js';
import { DEFAULT_LOG_SCHEMA } from '../../../../lib/codecs/encoding.js';
import { logEvent } from '../../../../lib/event.js';

describe('connectors/sinks/cloudw_stream: records', () => {
  it('gzipRecord makes one gzip stream per record that gunzips to the record, whatever its size', () => {
    for (const n of [0, 1, 200, 511, 512, 513, 40_000, 1_000_000]) {
      const data = Buffer.from(Array.from({ length: n }, (_, i) => String.fromCharCode(97 + ((i * 7919) % 26))).join(''));
      const gz = gzipRecord(data);
      expect(gz.subarray(0, 2).toString('hex')).to.equal('1f8b');
      expect(gunzipSync(gz).equals(data), `${n} bytes`).to.equal(true);
    }
  });

  it('cutKey keeps 256 characters, counting characters outside the basic plane as one', () => {
    expect(cutKey('a'.repeat(256))).to.equal('a'.repeat(256));
    expect(cutKey('a'.repeat(300))).to.equal('a'.repeat(256));
    const emoji = '😀'.repeat(200); // 400 UTF-16 units, 200 characters
    expect(cutKey(emoji)).to.equal(emoji);
    expect(Array.from(cutKey('😀'.repeat(300)))).to.have.length(256);
  });

  it('sizes a record as its bytes plus its key; booleans and objects become text keys', () => {
    const encode = createStreamEncoder({ encoding: { codec: 'json', timestamp_format: 'rfc3339' } as never, partition_key_field: 'k' }, DEFAULT_LOG_SCHEMA);
    const r = encode(logEvent({ message: 'x', k: true }));
    expect(r.partitionKey).to.equal('true');
    expect(r.size).to.equal(r.data.length + 4);
    expect(encode(logEvent({ k: { a: 1 } })).partitionKey).to.equal('{"a":1}');
    expect(encode(logEvent({ k: null })).partitionKey).to.equal(undefined);
  });
});
