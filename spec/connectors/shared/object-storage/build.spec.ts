import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import { createObjectBodyEncoder } from '../../../../connectors/shared/object-storage/index.js';
import { objectBodies } from '../../../../connectors/shared/object-storage/build.js';
import { objectEventEncoder } from '../../../../connectors/shared/object-storage/encoded.js';
import { logEvent } from '../../../../lib/event.js';
import { type Compressor, createCompressor } from '../../../../lib/net/compression.js';

const body = createObjectBodyEncoder({ codec: 'text' });
const lines = (n: number, pad = '') => Array.from({ length: n }, (_, i) => logEvent({ message: `line ${i}${pad}` }));

/** gzip, remembering the uncompressed bodies it was given. */
function watchedGzip(): { compressor: Compressor; raws: Buffer[] } {
  const gzip = createCompressor('gzip');
  const raws: Buffer[] = [];
  return { compressor: { ...gzip, compress: (b) => (raws.push(b), gzip.compress(b)) }, raws };
}

describe('connectors/shared/object-storage: object bodies in pooled memory', () => {
  it('compressed: the uncompressed body goes back to the pool at once and holds the next one', async () => {
    const enc = objectEventEncoder(body, () => '');
    const { compressor, raws } = watchedGzip();
    const bodies = objectBodies(body, enc, compressor, 10_000_000);
    const first = await bodies.build(lines(1000).map(enc.encode));
    expect(gunzipSync(first.body).toString().split('\n')).to.have.length(1000);
    expect(first.events).to.have.length(1000);
    await bodies.build(lines(1000).map(enc.encode));
    expect(raws[1]!.buffer, "the second body is in the first's memory").to.equal(raws[0]!.buffer);
  });

  it('uncompressed: the body is what the request sends, and its memory is reused only once its request is over', async () => {
    const enc = objectEventEncoder(body, () => '');
    const bodies = objectBodies(body, enc, createCompressor('none'), 10_000_000);
    const a = await bodies.build(lines(10).map(enc.encode));
    const b = await bodies.build(lines(10).map(enc.encode));
    expect(b.body.buffer).to.not.equal(a.body.buffer);
    expect(a.body.toString()).to.equal(Array.from({ length: 10 }, (_, i) => `line ${i}`).join('\n'));
    bodies.finished(a.body);
    const c = await bodies.build(lines(10).map(enc.encode));
    expect(c.body.buffer).to.equal(a.body.buffer);
  });

  it('keeps bodies up to the batches\' largest (max_bytes and 1 MiB of slack), not larger ones', async () => {
    const enc = objectEventEncoder(body, () => '');
    const bodies = objectBodies(body, enc, createCompressor('none'), 1000);
    const pad = 'p'.repeat(1000);
    const small = await bodies.build(lines(500, pad).map(enc.encode)); // about 0.5 MB
    bodies.finished(small.body);
    expect((await bodies.build(lines(500, pad).map(enc.encode))).body.buffer).to.equal(small.body.buffer);
    const large = await bodies.build(lines(2000, pad).map(enc.encode)); // about 2 MB
    bodies.finished(large.body);
    expect((await bodies.build(lines(2000, pad).map(enc.encode))).body.buffer).to.not.equal(large.body.buffer);
  });
});
