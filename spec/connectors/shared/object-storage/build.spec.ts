import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import { createObjectBodyEncoder } from '../../../../connectors/shared/object-storage/index.js';
import { buildObjectBody, objectBodyPool } from '../../../../connectors/shared/object-storage/build.js';
import { objectEventEncoder } from '../../../../connectors/shared/object-storage/encoded.js';
import { logEvent } from '../../../../lib/event.js';
import { createCompressor } from '../../../../lib/net/compression.js';

const body = createObjectBodyEncoder({ codec: 'text' });
const batch = (enc: ReturnType<typeof objectEventEncoder>, n: number) => Array.from({ length: n }, (_, i) => enc.encode(logEvent({ message: `line ${i}` })));

describe('connectors/shared/object-storage: object bodies in pooled memory', () => {
  it('compressed: the uncompressed body goes back to the pool at once and holds the next one', async () => {
    const enc = objectEventEncoder(body, () => '');
    const bodies = objectBodyPool(10_000_000);
    const taken: Buffer[] = [];
    const take = bodies.take.bind(bodies);
    bodies.take = (size) => {
      const b = take(size);
      taken.push(b);
      return b;
    };
    const gzip = createCompressor('gzip');
    const first = await buildObjectBody(batch(enc, 1000), body, enc.release, gzip, bodies);
    expect(gunzipSync(first.body).toString().split('\n')).to.have.length(1000);
    expect(first.events).to.have.length(1000);
    await buildObjectBody(batch(enc, 1000), body, enc.release, gzip, bodies);
    expect(taken).to.have.length(2);
    expect(taken[1]!.buffer, "the second body is in the first's memory").to.equal(taken[0]!.buffer);
  });

  it('uncompressed: the body is what the request sends, and its memory is reused only once given back', async () => {
    const enc = objectEventEncoder(body, () => '');
    const bodies = objectBodyPool(10_000_000);
    const none = createCompressor('none');
    const a = await buildObjectBody(batch(enc, 10), body, enc.release, none, bodies);
    const b = await buildObjectBody(batch(enc, 10), body, enc.release, none, bodies);
    expect(b.body.buffer).to.not.equal(a.body.buffer);
    expect(a.body.toString()).to.equal(Array.from({ length: 10 }, (_, i) => `line ${i}`).join('\n'));
    bodies.give(a.body);
    const c = await buildObjectBody(batch(enc, 10), body, enc.release, none, bodies);
    expect(c.body.buffer).to.equal(a.body.buffer);
  });

  it('keeps bodies up to the batches\' size: larger than the http default, never beyond max_bytes and its slack', () => {
    const pool = objectBodyPool(10_000_000);
    const big = pool.take(9_000_000);
    pool.give(big);
    expect(pool.take(9_000_000).buffer, 'a body of a full default batch is kept').to.equal(big.buffer);
    const huge = pool.take(20_000_000);
    pool.give(huge);
    expect(pool.take(20_000_000).buffer).to.not.equal(huge.buffer);
  });
});
