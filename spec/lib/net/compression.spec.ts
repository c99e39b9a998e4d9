import { expect } from 'chai';
import { deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import { defaultGlobals } from '../../../lib/config/global.js';
import {
  DEFAULT_MAX_DECOMPRESSED_BYTES,
  DecompressError,
  DecompressLimitError,
  createCompressor,
  decompress,
  decompressSync,
} from '../../../lib/net/compression.js';

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

describe('lib/net/compression: bounded decompression', () => {
  const MiB = 1024 * 1024;
  const text = Buffer.from('weir '.repeat(10_000));
  // 64 MiB of zeros compress to about 64 KiB: a decompression bomb
  const bomb = gzipSync(Buffer.alloc(64 * MiB));

  it('round-trips gzip (several members too) and zlib, async and sync', async () => {
    expect(await decompress(gzipSync(text), { algorithm: 'gzip' })).to.deep.equal(text);
    expect(decompressSync(deflateSync(text), { algorithm: 'zlib' })).to.deep.equal(text);
    const members = Buffer.concat([gzipSync('ab'), gzipSync('cd')]);
    expect((await decompress(members, { algorithm: 'gzip' })).toString()).to.equal('abcd');
    expect(decompressSync(members, { algorithm: 'gzip' }).toString()).to.equal('abcd');
  });

  it('a gzip bomb fails fast with the cap error, without inflating it', async () => {
    expect(bomb.length).to.be.below(128 * 1024);
    const rss0 = process.memoryUsage().rss;
    const err = await decompress(bomb, { algorithm: 'gzip', maxBytes: MiB }).then(
      () => expect.fail('decompressed past the cap'),
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(DecompressLimitError);
    expect((err as DecompressLimitError).maxBytes).to.equal(MiB);
    expect((err as Error).message).to.equal(`gzip: decompressed size exceeds the limit of ${MiB} bytes`);
    expect(() => decompressSync(bomb, { algorithm: 'gzip', maxBytes: MiB })).to.throw(DecompressLimitError, 'exceeds the limit');
    // the whole output would be 64 MiB
    expect(process.memoryUsage().rss - rss0).to.be.below(32 * MiB);
  });

  it('the default cap is 100 MiB, also the global max_decompressed_bytes default', async () => {
    expect(DEFAULT_MAX_DECOMPRESSED_BYTES).to.equal(104_857_600);
    expect(defaultGlobals().max_decompressed_bytes).to.equal(DEFAULT_MAX_DECOMPRESSED_BYTES);
    const over = deflateSync(Buffer.alloc(DEFAULT_MAX_DECOMPRESSED_BYTES + 1), { level: 1 });
    expect(() => decompressSync(over, { algorithm: 'zlib' })).to.throw(DecompressLimitError, `limit of ${DEFAULT_MAX_DECOMPRESSED_BYTES} bytes`);
    expect((await decompress(bomb, { algorithm: 'gzip' })).length).to.equal(64 * MiB);
  });

  it('output of exactly maxBytes passes; one byte more does not', async () => {
    const gz = gzipSync(Buffer.alloc(1000, 0x61));
    expect((await decompress(gz, { algorithm: 'gzip', maxBytes: 1000 })).length).to.equal(1000);
    expect(decompressSync(gz, { algorithm: 'gzip', maxBytes: 1000 }).length).to.equal(1000);
    await decompress(gz, { algorithm: 'gzip', maxBytes: 999 }).then(
      () => expect.fail('accepted 1000 bytes under a 999-byte cap'),
      (e: unknown) => expect(e).to.be.instanceOf(DecompressLimitError),
    );
    expect(() => decompressSync(Buffer.alloc(10), { algorithm: 'none', maxBytes: 9 })).to.throw(DecompressLimitError);
    expect(decompressSync(text, { algorithm: 'none', maxBytes: text.length })).to.equal(text);
  });

  it('corrupt or cut-off input and algorithms this build lacks are DecompressErrors, not cap errors', async () => {
    const corrupt = [
      ['gzip', Buffer.from('not gzip at all')],
      ['gzip', gzipSync(text).subarray(0, 20)],
      ['zlib', Buffer.from('not zlib')],
      ['zstd', Buffer.from([0x28, 0xb5, 0x2f, 0xfd])],
      ['snappy', Buffer.from('x')],
    ] as const;
    for (const [algorithm, input] of corrupt) {
      expect(() => decompressSync(input, { algorithm }), algorithm).to.throw(DecompressError, new RegExp(`^${algorithm}: `));
      expect(() => decompressSync(input, { algorithm })).to.not.throw(DecompressLimitError);
      const err = await decompress(input, { algorithm }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, algorithm).to.be.instanceOf(DecompressError);
      expect(err, algorithm).to.not.be.instanceOf(DecompressLimitError);
    }
    expect(() => decompressSync(text, { algorithm: 'gzip', maxBytes: 0 })).to.throw(RangeError);
  });
});
