import { expect } from 'chai';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Harness } from './harness.js';

const TS = '^\\d{4}-\\d{2}-\\d{2}';

describe('file source: multiline', () => {
  let h: Harness;
  beforeEach(() => {
    h = new Harness();
  });
  afterEach(() => h.dispose());

  const run = (mode: string, start: string, condition: string, text: string, timeout = 1000) => {
    writeFileSync(h.path('m.log'), text);
    const r = h.start({ multiline: { mode, start_pattern: start, condition_pattern: condition, timeout_ms: timeout }, offset_key: 'offset' });
    h.advance(10);
    return r;
  };

  it('continue_through: indented lines join the line before; a line that does not match is judged afresh', () => {
    const r = run('continue_through', '^[^\\s]', '^\\s', 'Exception: boom\n  at a()\n  at b()\nplain\nError: two\n  at c()\nnext\n');
    expect(r.messages()).to.deep.equal(['Exception: boom\n  at a()\n  at b()', 'plain', 'Error: two\n  at c()']);
    // "next" opens a message of its own, emitted at the timeout
    h.advance(1000);
    expect(r.messages().at(-1)).to.equal('next');
    expect(r.events().map((e) => e.fields.offset)).to.deep.equal([0, 34, 40, 60]);
  });

  it('continue_past: lines ending in a backslash join, with the first one that does not', () => {
    const r = run('continue_past', '\\\\$', '\\\\$', 'one \\\ntwo \\\nthree\nsingle\n');
    expect(r.messages()).to.deep.equal(['one \\\ntwo \\\nthree', 'single']);
  });

  it('halt_before: a new timestamp ends the message before it', () => {
    const r = run('halt_before', TS, TS, '2024-01-01 a\n  more a\n2024-01-02 b\n  more b\n  and b\n2024-01-03 c\n');
    expect(r.messages()).to.deep.equal(['2024-01-01 a\n  more a', '2024-01-02 b\n  more b\n  and b']);
    h.advance(1000);
    expect(r.messages().at(-1)).to.equal('2024-01-03 c');
  });

  it('halt_with: lines join up to and including the one that matches', () => {
    const r = run('halt_with', '^BEGIN', ';$', 'BEGIN x\ny\nz;\nloose\nBEGIN w;\n');
    expect(r.messages()).to.deep.equal(['BEGIN x\ny\nz;', 'loose']);
    // the first line of a message is not judged by condition_pattern: it waits for the next one or the timeout
    h.advance(1000);
    expect(r.messages()).to.deep.equal(['BEGIN x\ny\nz;', 'loose', 'BEGIN w;']);
  });

  it('timeout_ms (virtual time): an open message is emitted that long after its last line, not before; each new line restarts it', () => {
    const r = run('halt_before', TS, TS, '2024-01-01 a\n', 5000);
    h.advance(4000);
    appendFileSync(h.path('m.log'), '  more\n');
    h.advance(4500);
    expect(r.messages()).to.deep.equal([]);
    h.advance(1000);
    expect(r.messages()).to.deep.equal(['2024-01-01 a\n  more']);
  });

  it('the checkpoint stays before an open message, so a restart reads it whole again', () => {
    const r = run('halt_before', TS, TS, '2024-01-01 a\n  more\n2024-01-02 b\n  more b\n', 60_000);
    h.advance(1500);
    expect(r.messages()).to.deep.equal(['2024-01-01 a\n  more']);
    r.stop();
    const saved = JSON.parse(readFileSync(join(h.data, 'in', 'checkpoints.json'), 'utf8')) as { checkpoints: { position: number }[] };
    expect(saved.checkpoints[0]!.position).to.equal('2024-01-01 a\n  more\n'.length);
    const again = h.start({ multiline: { mode: 'halt_before', start_pattern: TS, condition_pattern: TS, timeout_ms: 10 } });
    h.advance(100);
    expect(again.messages()).to.deep.equal(['2024-01-02 b\n  more b']);
  });

  it('an open message never grows past max_line_bytes: it is emitted as it is and the rest goes on', () => {
    writeFileSync(h.path('m.log'), `a\n${' x\n'.repeat(20)}b\n`);
    const r = h.start({ max_line_bytes: 10, multiline: { mode: 'continue_through', start_pattern: '^a', condition_pattern: '^ ', timeout_ms: 1000 } });
    h.advance(10);
    expect(r.messages().length).to.be.greaterThan(2);
    // at most max_line_bytes plus the line that crossed it
    for (const m of r.messages()) expect(m.length).to.be.at.most(13);
    expect(r.messages().join('\n')).to.equal(`a\n${' x\n'.repeat(20)}b`);
  });
});
