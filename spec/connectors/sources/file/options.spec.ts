import { expect } from 'chai';
import { appendFileSync, existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { settleAll } from '../../../../lib/event.js';
import { Harness } from './harness.js';

const numbered = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('file source: oldest_first and remove_after_secs', () => {
  let h: Harness;
  beforeEach(() => {
    h = new Harness();
  });
  afterEach(() => h.dispose());

  // more lines than one batch holds, so the batches of the two files can interleave
  const N = 600;
  const order = (oldestFirst: boolean) => {
    // the newer file gets the name that lists first, so only creation times can order them
    writeFileSync(h.path('b-older.log'), `${numbered('o', N).join('\n')}\n`);
    // creation times have a coarse clock: the newer file is created once the clock has moved on
    const born = statSync(h.path('b-older.log')).birthtimeMs;
    do writeFileSync(h.path('a-newer.log'), `${numbered('n', N).join('\n')}\n`);
    while (statSync(h.path('a-newer.log')).birthtimeMs <= born && rmSync(h.path('a-newer.log')) === undefined);
    const r = h.start({ oldest_first: oldestFirst, max_read_bytes: 16 });
    h.advance(10);
    return r.messages();
  };

  it('oldest_first: the oldest file is read to its end before a newer one', () => {
    expect(order(true)).to.deep.equal([...numbered('o', N), ...numbered('n', N)]);
  });

  it('without oldest_first the files take turns', () => {
    const m = order(false);
    expect(m.indexOf('n0')).to.be.lessThan(m.indexOf(`o${N - 1}`));
    expect(m.filter((x) => x.startsWith('o'))).to.deep.equal(numbered('o', N));
  });

  it('remove_after_secs: a file read to its end and idle that long is deleted and let go; new lines postpone it', () => {
    writeFileSync(h.path('done.log'), 'one\n');
    const r = h.start({ remove_after_secs: 10 });
    h.advance(6000);
    appendFileSync(h.path('done.log'), 'two\n');
    h.advance(6000);
    expect(existsSync(h.path('done.log'))).to.equal(true);
    h.advance(5000);
    expect(existsSync(h.path('done.log'))).to.equal(false);
    expect(r.messages()).to.deep.equal(['one', 'two']);
    expect(r.ctx.metric('files_deleted_total')).to.equal(1);
    expect(r.ctx.metric('files_unwatched_total')).to.equal(1);
  });

  it('remove_after_secs with acknowledgements: a file whose lines are not delivered yet stays', () => {
    writeFileSync(h.path('held.log'), 'one\n');
    const r = h.start({ remove_after_secs: 1 }, { acknowledgements: true });
    h.advance(5000);
    expect(existsSync(h.path('held.log'))).to.equal(true);
    settleAll(r.batches[0]!, 'delivered');
    h.advance(2000);
    expect(existsSync(h.path('held.log'))).to.equal(false);
  });
});

describe('file source: internal metrics', () => {
  let h: Harness;
  beforeEach(() => {
    h = new Harness();
  });
  afterEach(() => h.dispose());

  it("Vector's names: files_added_total, files_resumed_total, files_unwatched_total, checkpoints_total; include_file_tag tags them with the path", () => {
    writeFileSync(h.path('a.log'), 'a\n');
    const first = h.start();
    h.advance(1500);
    expect(first.ctx.metric('files_added_total')).to.equal(1);
    expect(first.ctx.metric('files_resumed_total')).to.equal(0);
    expect(first.ctx.metric('checkpoints_total')).to.be.at.least(1);
    first.stop();
    const tagged = h.start({ internal_metrics: { include_file_tag: true } });
    h.advance(10);
    expect(tagged.ctx.metric('files_resumed_total', { file: h.path('a.log') })).to.equal(1);
    rmSync(h.path('a.log'));
    h.advance(1500);
    expect(tagged.ctx.metric('files_unwatched_total', { file: h.path('a.log') })).to.equal(1);
    expect(first.ctx.metric('files_unwatched_total', { file: h.path('a.log') })).to.equal(0);
  });
});
