import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { Harness, type Running } from './harness.js';

const lines = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix} ${i}`);

describe('file source: gzip-compressed files', () => {
  let h: Harness;
  beforeEach(() => {
    h = new Harness();
  });
  afterEach(() => h.dispose());

  /** Decompression runs on zlib's threads: virtual time moves on while real time lets it work. */
  async function until(r: Running, done: () => boolean): Promise<void> {
    for (let i = 0; i < 400 && !done(); i++) {
      h.advance(300);
      await new Promise((res) => setTimeout(res, 5));
    }
    expect(r.errors).to.deep.equal([]);
  }

  it('are read as their content, offsets in decompressed bytes; a restart resumes inside the content', async () => {
    const content = lines('zipped', 5000);
    writeFileSync(h.path('old.log.gz'), gzipSync(`${content.join('\n')}\n`));
    writeFileSync(h.path('plain.log'), 'plain\n');
    const include = [`${h.dir}/*.log`, `${h.dir}/*.gz`];
    const first = h.start({ include, offset_key: 'offset', max_read_bytes: 512 }, { onBatch: (ctx) => ctx.gate.close() });
    // the output takes a few batches, then the source is stopped part way through the file
    for (let i = 0; i < 20 && first.events().filter((e) => e.fields.file !== h.path('plain.log')).length === 0; i++) {
      first.ctx.gate.open();
      await until(first, () => first.batches.length > i);
    }
    for (let i = 0; i < 5; i++) {
      first.ctx.gate.open();
      h.advance(1);
    }
    const part = first.events().filter((e) => e.fields.file === h.path('old.log.gz'));
    expect(part.length).to.be.greaterThan(0).and.lessThan(content.length);
    expect(part[1]!.fields.offset).to.equal('zipped 0\n'.length);
    first.stop();
    const second = h.start({ include });
    await until(second, () => second.messages().includes('zipped 4999'));
    const all = [...part.map((e) => String(e.fields.message)), ...second.messages().filter((m) => m.startsWith('zipped'))];
    expect(all).to.deep.equal(content);
  });

  it('a corrupt gzip file is counted and let go after the lines it gave; other files are read', async () => {
    const good = gzipSync(`${lines('z', 2000).join('\n')}\n`);
    // cut short and garbled: decompression fails part way
    const bad = Buffer.concat([good.subarray(0, good.length >> 1), Buffer.alloc(64, 0x55)]);
    writeFileSync(h.path('bad.log.gz'), bad);
    writeFileSync(h.path('plain.log'), 'plain\n');
    const r = h.start({ include: [`${h.dir}/*.log`, `${h.dir}/*.gz`] });
    await until(r, () => r.ctx.metric('files_unwatched_total') === 1);
    expect(r.messages()).to.include('plain');
    const zipped = r.messages().filter((m) => m.startsWith('z '));
    expect(zipped).to.deep.equal(lines('z', zipped.length));
    expect(r.ctx.metric('component_errors_total', { error_type: 'reader_failed' })).to.equal(1);
  });
});
