import { expect } from 'chai';
import { appendFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { settleAll } from '../../../../lib/event.js';
import { Harness } from './harness.js';

describe('file source: identity and checkpoints', () => {
  let h: Harness;
  beforeEach(() => {
    h = new Harness();
  });
  afterEach(() => h.dispose());
  const saved = () => JSON.parse(readFileSync(join(h.data, 'in', 'checkpoints.json'), 'utf8')) as { checkpoints: { fingerprint: string; position: number }[] };

  it('a restart resumes from the checkpoints: no line read twice, none skipped; ignore_checkpoints reads again', () => {
    writeFileSync(h.path('a.log'), 'a1\na2\n');
    writeFileSync(h.path('b.log'), 'b1\n');
    const first = h.start();
    h.advance(10);
    expect(first.messages().sort()).to.deep.equal(['a1', 'a2', 'b1']);
    appendFileSync(h.path('a.log'), 'a3\npart');
    h.advance(300);
    first.stop();
    expect(saved().checkpoints.map((c) => c.position).sort()).to.deep.equal([3, 9]);
    // written while stopped
    appendFileSync(h.path('a.log'), 'ial\n');
    appendFileSync(h.path('b.log'), 'b2\n');
    const second = h.start();
    h.advance(10);
    expect(second.messages().sort()).to.deep.equal(['b2', 'partial']);
    expect(second.ctx.metric('files_resumed_total')).to.equal(2);
    second.stop();
    const third = h.start({ ignore_checkpoints: true });
    h.advance(10);
    expect(third.messages().sort()).to.deep.equal(['a1', 'a2', 'a3', 'b1', 'b2', 'partial']);
  });

  it('checksum: a file shorter than its fingerprint is read once it grows; a rename keeps its identity', () => {
    writeFileSync(h.path('slow.log'), 'first line');
    const r = h.start({ fingerprint: { lines: 2 } });
    h.advance(10);
    appendFileSync(h.path('slow.log'), '\nsecond');
    h.advance(1500);
    expect(r.messages()).to.deep.equal([]);
    appendFileSync(h.path('slow.log'), '\nthird\n');
    h.advance(1500);
    expect(r.messages()).to.deep.equal(['first line', 'second', 'third']);
    renameSync(h.path('slow.log'), h.path('moved.log'));
    appendFileSync(h.path('moved.log'), 'fourth\n');
    h.advance(1500);
    expect(r.messages()).to.deep.equal(['first line', 'second', 'third', 'fourth']);
    // the new name is known from the next discovery on
    appendFileSync(h.path('moved.log'), 'fifth\n');
    h.advance(300);
    expect(r.messages().at(-1)).to.equal('fifth');
    expect(r.events().at(-1)!.fields.file).to.equal(h.path('moved.log'));
    expect(r.ctx.metric('files_added_total')).to.equal(1);
  });

  it('checksum: ignored_header_bytes leaves a shared header out, so two files with the same header are two files', () => {
    writeFileSync(h.path('x.log'), 'HEADER\nx\n');
    writeFileSync(h.path('y.log'), 'HEADER\ny\n');
    const same = h.start();
    h.advance(10);
    // the same first line: one identity, one file read
    expect(same.messages().length).to.equal(2);
    same.stop();
    const apart = h.start({ fingerprint: { ignored_header_bytes: 7 }, ignore_checkpoints: true });
    h.advance(10);
    expect(apart.messages().sort()).to.deep.equal(['HEADER', 'HEADER', 'x', 'y']);
  });

  it('device_and_inode: a file is known by its inode, so a new first line does not make it new', () => {
    writeFileSync(h.path('a.log'), 'one\n');
    const r = h.start({ fingerprint: { strategy: 'device_and_inode' } });
    h.advance(10);
    appendFileSync(h.path('a.log'), 'two\n');
    h.advance(1500);
    expect(r.messages()).to.deep.equal(['one', 'two']);
    expect(saved().checkpoints[0]!.fingerprint).to.match(/^dev:\d+:\d+$/);
  });

  it('with acknowledgements the checkpoint passes only lines delivered, in read order; a failed batch holds it', () => {
    writeFileSync(h.path('a.log'), 'l1\n');
    const r = h.start({ max_read_bytes: 3 }, { acknowledgements: true });
    h.advance(10);
    appendFileSync(h.path('a.log'), 'l2\n');
    h.advance(300);
    appendFileSync(h.path('a.log'), 'l3\n');
    h.advance(300);
    expect(r.batches.map((b) => b.map((e) => e.fields.message))).to.deep.equal([['l1'], ['l2'], ['l3']]);
    // the second settles first: nothing passes the first
    settleAll(r.batches[1]!, 'delivered');
    h.advance(1500);
    expect(() => saved()).to.throw();
    settleAll(r.batches[0]!, 'delivered');
    h.advance(1500);
    expect(saved().checkpoints[0]!.position).to.equal(6);
    settleAll(r.batches[2]!, 'errored');
    appendFileSync(h.path('a.log'), 'l4\n');
    h.advance(300);
    settleAll(r.batches[3]!, 'delivered');
    h.advance(1500);
    expect(saved().checkpoints[0]!.position).to.equal(6);
    r.stop();
    // a restart reads the undelivered line again, and what followed it
    const again = h.start();
    h.advance(10);
    expect(again.messages()).to.deep.equal(['l3', 'l4']);
  });

  it('acknowledgements.enabled on the source is deprecated: a warning, and the sinks decide', () => {
    writeFileSync(h.path('a.log'), 'one\n');
    const r = h.start({ acknowledgements: { enabled: true } });
    h.advance(10);
    expect(r.ctx.lines.some((l) => l.includes('deprecated and has no effect'))).to.equal(true);
    // no sink asks for acknowledgements here: the position advances at emission
    h.advance(1500);
    expect(saved().checkpoints[0]!.position).to.equal(4);
  });
});
