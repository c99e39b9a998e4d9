import { expect } from 'chai';
import { appendFileSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { BATCH_EVENTS, IDLE_POLL_MS } from '../../../../connectors/sources/file/source.js';
import { Timestamp } from '../../../../lib/value.js';
import { Harness } from './harness.js';

describe('file source: discovery and lines', () => {
  let h: Harness;
  beforeEach(() => {
    h = new Harness();
  });
  afterEach(() => h.dispose());

  it('reads every file matched by a ** pattern but excluded ones; event fields; a last line without delimiter waits for it', () => {
    mkdirSync(h.path('a', 'b'), { recursive: true });
    writeFileSync(h.path('top.log'), 'top 1\ntop 2\n');
    writeFileSync(h.path('a', 'b', 'deep.log'), 'deep 1\npartial');
    writeFileSync(h.path('a', 'skip.log'), 'excluded\n');
    writeFileSync(h.path('a', 'other.txt'), 'not matched\n');
    const r = h.start({ exclude: [`${h.dir}/a/skip.*`], offset_key: 'offset' });
    h.advance(10);
    expect(r.messages().sort()).to.deep.equal(['deep 1', 'top 1', 'top 2']);
    const e = r.events().find((x) => x.fields.message === 'top 2')!;
    expect(Object.keys(e.fields).sort()).to.deep.equal(['file', 'host', 'message', 'offset', 'source_type', 'timestamp']);
    expect(e.fields.file).to.equal(h.path('top.log'));
    expect(e.fields.host).to.equal(hostname());
    expect(e.fields.source_type).to.equal('file');
    expect(e.fields.offset).to.equal(6);
    expect(e.fields.timestamp).to.be.instanceOf(Timestamp);
    appendFileSync(h.path('a', 'b', 'deep.log'), ' line\n');
    h.advance(300);
    expect(r.messages()).to.include('partial line');
    expect(r.events().find((x) => x.fields.message === 'partial line')!.fields.offset).to.equal(7);
    expect(r.ctx.metric('component_received_bytes_total')).to.equal(12 + 14 + 6);
  });

  it('finds files created later only after glob_minimum_cooldown_ms (virtual time)', () => {
    const r = h.start({ glob_minimum_cooldown_ms: 5000 });
    h.advance(10);
    writeFileSync(h.path('late.log'), 'late\n');
    h.advance(4000);
    expect(r.messages()).to.deep.equal([]);
    h.advance(1500);
    expect(r.messages()).to.deep.equal(['late']);
    expect(r.ctx.metric('files_added_total')).to.equal(1);
  });

  it('read_from = end skips what files held at startup; a file found later is read from its beginning', () => {
    writeFileSync(h.path('old.log'), 'before 1\nbefore 2\n');
    const r = h.start({ read_from: 'end' });
    h.advance(10);
    appendFileSync(h.path('old.log'), 'after\n');
    writeFileSync(h.path('new.log'), 'new 1\n');
    h.advance(1500);
    expect(r.messages().sort()).to.deep.equal(['after', 'new 1']);
  });

  it('ignore_older_secs: a file not modified for longer is read from its end only', () => {
    writeFileSync(h.path('stale.log'), 'stale\n');
    writeFileSync(h.path('fresh.log'), 'fresh\n');
    const old = (Date.now() - 3600_000) / 1000;
    utimesSync(h.path('stale.log'), old, old);
    // virtual time starts at 0: the source compares with its scheduler's clock
    h.scheduler.frame = Date.now();
    const r = h.start({ ignore_older_secs: 600 });
    h.advance(10);
    appendFileSync(h.path('stale.log'), 'revived\n');
    h.advance(300);
    expect(r.messages().sort()).to.deep.equal(['fresh', 'revived']);
  });

  it('ignore_older_secs wins over a checkpoint: a stale file is read from its end', () => {
    writeFileSync(h.path('stale.log'), 'one\n');
    h.scheduler.frame = Date.now();
    const first = h.start();
    h.advance(10);
    first.stop();
    appendFileSync(h.path('stale.log'), 'two, while stopped\n');
    const old = (Date.now() - 3600_000) / 1000;
    utimesSync(h.path('stale.log'), old, old);
    const second = h.start({ ignore_older_secs: 600 });
    h.advance(10);
    expect(second.messages()).to.deep.equal([]);
    appendFileSync(h.path('stale.log'), 'three\n');
    h.advance(300);
    expect(second.messages()).to.deep.equal(['three']);
  });

  it('max_line_bytes: a longer line is discarded even across reads, counted and warned about; its neighbours stay', () => {
    writeFileSync(h.path('long.log'), `short 1\n${'x'.repeat(100)}\nshort 2\n${'y'.repeat(11)}\n${'z'.repeat(10)}\n`);
    const r = h.start({ max_line_bytes: 10, max_read_bytes: 7 });
    h.advance(10);
    expect(r.messages()).to.deep.equal(['short 1', 'short 2', 'z'.repeat(10)]);
    expect(r.ctx.metric('component_discarded_events_total')).to.equal(2);
    expect(r.ctx.lines.some((l) => l.includes('exceeds max_line_bytes'))).to.equal(true);
    // the position covers the discarded lines too: nothing is held
    appendFileSync(h.path('long.log'), 'next\n');
    h.advance(300);
    expect(r.messages().at(-1)).to.equal('next');
  });

  it('line_delimiter of several bytes, cut by reads of one byte', () => {
    writeFileSync(h.path('crlf.log'), 'one\r\ntwo\rstill two\r\nthree');
    const r = h.start({ line_delimiter: '\r\n', max_read_bytes: 1, fingerprint: { strategy: 'device_and_inode' } });
    h.advance(10);
    expect(r.messages()).to.deep.equal(['one', 'two\rstill two']);
  });

  it('a closed gate stops reading within one round; reading resumes where it stopped, each line once', () => {
    const lines = Array.from({ length: 200 }, (_, i) => `line ${i}`);
    writeFileSync(h.path('big.log'), `${lines.join('\n')}\n`);
    const r = h.start({ max_read_bytes: 64 });
    r.ctx.gate.close();
    h.advance(10);
    // the first round of reads sees the gate closed after its first emission
    expect(r.batches.length).to.be.at.most(1);
    const before = r.events().length;
    h.advance(5000);
    expect(r.events().length).to.equal(before);
    r.ctx.gate.open();
    h.advance(10);
    expect(r.messages()).to.deep.equal(lines);
  });

  it('bytes read ahead of a round, lines batched over rounds: lines appended and a truncation after the read are seen', () => {
    // well past one read-ahead (32 KiB), in rounds of 100 bytes
    const lines = Array.from({ length: 8000 }, (_, i) => `line ${i}`);
    writeFileSync(h.path('big.log'), `${lines.slice(0, 6000).join('\n')}\n`);
    const r = h.start({ max_read_bytes: 100, offset_key: 'offset' });
    h.advance(10);
    appendFileSync(h.path('big.log'), `${lines.slice(6000).join('\n')}\n`);
    h.advance(300);
    expect(r.messages()).to.deep.equal(lines);
    // rounds of 100 bytes (at most 12 of these lines each) batched up to BATCH_EVENTS, plus the round that got there
    const largest = Math.max(...r.batches.map((b) => b.length));
    expect(largest).to.be.within(BATCH_EVENTS, BATCH_EVENTS + 12);
    const text = `${lines.join('\n')}\n`;
    const offsets = r.events().map((e) => e.fields.offset);
    expect(offsets[7999]).to.equal(text.lastIndexOf('line 7999'));
    writeFileSync(h.path('big.log'), '');
    h.advance(300);
    appendFileSync(h.path('big.log'), 'after\n');
    h.advance(300);
    expect(r.messages().slice(8000)).to.deep.equal(['after']);
  });

  it('a file that just had data is polled again within milliseconds; an idle one every IDLE_POLL_MS (virtual time)', () => {
    writeFileSync(h.path('a.log'), 'one\n');
    const r = h.start();
    h.advance(5);
    appendFileSync(h.path('a.log'), 'two\n');
    // polls 1, 2, 4 … ms apart after the last data
    h.advance(10);
    expect(r.messages()).to.deep.equal(['one', 'two']);
    // long idle: the pause has grown to IDLE_POLL_MS, not beyond
    h.advance(5000);
    appendFileSync(h.path('a.log'), 'three\n');
    h.advance(IDLE_POLL_MS);
    expect(r.messages()).to.deep.equal(['one', 'two', 'three']);
  });

  it('a directory matching the pattern is skipped; a symbolic link to a file is read', async () => {
    const { symlinkSync } = await import('node:fs');
    mkdirSync(h.path('dir.log'));
    writeFileSync(h.path('target.txt'), 'through the link\n');
    symlinkSync(h.path('target.txt'), h.path('link.log'));
    const r = h.start();
    h.advance(10);
    expect(r.messages()).to.deep.equal(['through the link']);
    expect(r.events()[0]!.fields.file).to.equal(h.path('link.log'));
  });
});

describe('file source: files that cannot be read', () => {
  let h: Harness;
  beforeEach(() => {
    h = new Harness();
  });
  afterEach(() => h.dispose());

  it('a path that cannot be opened is counted and reported once; the other files are read', async () => {
    const { chmodSync, symlinkSync } = await import('node:fs');
    writeFileSync(h.path('good.log'), 'good\n');
    // a symbolic link loop fails for every user (root ignores permission bits)
    symlinkSync(h.path('loop-b.log'), h.path('loop-a.log'));
    symlinkSync(h.path('loop-a.log'), h.path('loop-b.log'));
    const asRoot = process.getuid?.() === 0;
    if (!asRoot) {
      writeFileSync(h.path('denied.log'), 'secret\n');
      chmodSync(h.path('denied.log'), 0o000);
    }
    const r = h.start();
    h.advance(3500);
    expect(r.messages()).to.deep.equal(['good']);
    expect(r.ctx.metric('component_errors_total', { error_type: 'reader_failed' })).to.equal(asRoot ? 2 * 4 : 3 * 4);
    // reported once per path, however often discovery meets it
    expect(r.ctx.lines.filter((l) => l.includes('loop-a.log')).length).to.equal(1);
  });
});
