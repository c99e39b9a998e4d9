import { expect } from 'chai';
import { gunzipSync, inflateSync } from 'node:zlib';
import { createCompressor } from '../../../lib/net/compression.js';

describe('lib/net/compression', () => {
  const body = Buffer.from('hello '.repeat(1000));
  it('gzip defaults to level 6 and round-trips', async () => {
    const gz = createCompressor('gzip');
    expect(gz.contentEncoding).to.equal('gzip');
    const out = await gz.compress(body);
    expect(gunzipSync(out)).to.deep.equal(body);
    const level1 = await createCompressor('gzip', 1).compress(body);
    const level6 = await createCompressor('gzip', 6).compress(body);
    expect(out).to.deep.equal(level6);
    expect(level1).to.not.deep.equal(level6);
  });
  it('zlib is deflate; none passes the body through', async () => {
    expect(inflateSync(await createCompressor('zlib').compress(body))).to.deep.equal(body);
    const none = createCompressor('none');
    expect(none.contentEncoding).to.equal(undefined);
    expect(await none.compress(body)).to.equal(body);
  });
  it('algorithms this runtime lacks fail at build time', () => {
    expect(() => createCompressor('zstd')).to.throw(/zstd/);
    expect(() => createCompressor('snappy')).to.throw(/snappy/);
    expect(() => createCompressor('gzip', 10)).to.throw(/level/);
  });
});
