/** Request bodies reuse the memory of bodies whose requests are over (connectors/shared/body-pool.ts). */
import { expect } from 'chai';
import { BodyPool } from '../../../../connectors/shared/body-pool.js';
import { createHttpEncoder } from '../../../../connectors/sinks/http/encoder.js';
import { logEvent } from '../../../../lib/event.js';
import { httpConfig } from './harness.js';

describe('connectors/sinks/http: body pool', () => {
  it('gives a body of the size asked; one given back serves the next body that fits', () => {
    const pool = new BodyPool();
    const a = pool.take(100_000);
    expect(a.length).to.equal(100_000);
    const b = pool.take(100_000);
    expect(b.buffer, 'two bodies out at once never share memory').to.not.equal(a.buffer);
    pool.give(a);
    const c = pool.take(90_000);
    expect(c.length).to.equal(90_000);
    expect(c.buffer).to.equal(a.buffer);
    // a larger body than any free buffer gets new memory
    pool.give(c);
    expect(pool.take(500_000).buffer).to.not.equal(a.buffer);
  });

  it('keeps a body given back twice once, and ignores memory it did not give', () => {
    const pool = new BodyPool();
    const a = pool.take(1000);
    pool.give(a);
    pool.give(a);
    pool.give(Buffer.alloc(1000));
    const first = pool.take(1000);
    const second = pool.take(1000);
    expect(first.buffer).to.equal(a.buffer);
    expect(second.buffer).to.not.equal(a.buffer);
  });

  it('does not keep a body past 4 MiB', () => {
    const pool = new BodyPool();
    const big = pool.take(5 * 1024 * 1024);
    pool.give(big);
    expect(pool.take(5 * 1024 * 1024).buffer).to.not.equal(big.buffer);
  });

  it("the http encoder's next body takes the memory of a body recycled, with its own bytes", () => {
    const encoder = createHttpEncoder(httpConfig('http://127.0.0.1:1/', { encoding: { codec: 'ndjson' } }));
    const one = encoder.body([encoder.encode(logEvent({ message: 'a'.repeat(5000) }))]);
    encoder.recycle(one);
    const two = encoder.body([encoder.encode(logEvent({ message: 'b' }))]);
    expect(two.buffer).to.equal(one.buffer);
    expect(two.toString()).to.equal('{"message":"b"}');
  });
});
