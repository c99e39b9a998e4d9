import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { appendFileSync, closeSync, constants, existsSync, openSync, readdirSync, renameSync, truncateSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { Harness, type Running } from './harness.js';

const LOGROTATE = ['/usr/sbin/logrotate', '/usr/bin/logrotate'].find(existsSync);

/** Runs the real logrotate on one configuration (state file beside it); resolves when it exits. */
function logrotate(h: Harness, conf: string): Promise<void> {
  if (LOGROTATE === undefined) throw new Error('logrotate is not installed (scripts/test-peers.mjs installs it)');
  const path = h.path('logrotate.conf');
  writeFileSync(path, conf);
  return new Promise((resolve, reject) =>
    execFile(LOGROTATE, ['-f', '-s', h.path('logrotate.state'), path], (err, _out, stderr) => (err ? reject(new Error(`logrotate: ${err.message} ${stderr}`)) : resolve())),
  );
}

/**
 * Appends numbered lines, reopening the file for each (as a writer told to reopen after a
 * rotation), never creating it: while the path is missing the line waits for the next turn.
 */
class Writer {
  next = 0;
  constructor(private readonly path: string) {}
  write(count: number): void {
    for (let i = 0; i < count; i++) {
      let fd: number;
      try {
        fd = openSync(this.path, constants.O_WRONLY | constants.O_APPEND);
      } catch {
        return;
      }
      writeSync(fd, `line ${this.next}\n`);
      closeSync(fd);
      this.next++;
    }
  }
}

/** Writes and reads (in virtual time) until `done` resolved and the source caught up with the writer. */
async function runWhile(h: Harness, r: Running, w: Writer, done: Promise<void>): Promise<void> {
  let finished = false;
  void done.then(() => (finished = true));
  const deadline = Date.now() + 20_000;
  while (!finished) {
    if (Date.now() > deadline) throw new Error('logrotate did not finish');
    w.write(5);
    h.advance(300);
    await new Promise((res) => setTimeout(res, 1));
  }
  await done;
  w.write(20);
  for (let i = 0; i < 10; i++) h.advance(1100);
  expect(r.errors).to.deep.equal([]);
}

const numbers = (r: Running) => r.messages().map((m) => Number(m.slice('line '.length)));

describe('file source: rotation by the real logrotate', function () {
  this.timeout(60_000);
  let h: Harness;
  beforeEach(() => {
    h = new Harness();
  });
  afterEach(() => h.dispose());

  it('rename and create, while a writer appends: every line exactly once, the rotated file read to its end', async () => {
    const log = h.path('app.log');
    writeFileSync(log, '');
    const w = new Writer(log);
    w.write(50);
    const r = h.start({ include: [`${h.dir}/*.log`] });
    h.advance(10);
    w.write(50);
    await runWhile(h, r, w, logrotate(h, `${log} {\n  rotate 3\n  create\n  missingok\n}\n`));
    expect(readdirSync(h.dir)).to.include('app.log.1');
    expect(numbers(r)).to.deep.equal(Array.from({ length: w.next }, (_, i) => i));
    // the rotated file was let go once read to its end; the new one is watched
    expect(r.ctx.metric('files_unwatched_total')).to.equal(1);
    expect(r.ctx.metric('files_added_total')).to.equal(2);
  });

  it('copytruncate: only lines written while logrotate ran may be lost (between its copy and its truncation), none twice', async () => {
    const log = h.path('app.log');
    writeFileSync(log, '');
    const w = new Writer(log);
    w.write(200);
    // the copy matches too: lines read from it after the copy are not lost
    const r = h.start({ include: [`${h.dir}/app.log*`], exclude: [`${h.dir}/*.gz`] });
    h.advance(10);
    w.write(50);
    const before = w.next;
    let after = 0;
    await runWhile(
      h,
      r,
      w,
      logrotate(h, `${log} {\n  rotate 3\n  copytruncate\n  missingok\n}\n`).then(() => {
        after = w.next;
      }),
    );
    const got = numbers(r);
    expect(new Set(got).size, 'no line twice').to.equal(got.length);
    const missing = Array.from({ length: w.next }, (_, i) => i).filter((i) => !got.includes(i));
    for (const m of missing) expect(m, `line ${m} lost outside logrotate's run [${before}, ${after})`).to.be.within(before, after - 1);
    // every line written after logrotate exited arrived
    expect(got.filter((n) => n >= after)).to.have.length(w.next - after);
  });

  it('copytruncate: lines written before the rotation and not read yet are read from the copy, once', async () => {
    const log = h.path('app.log');
    writeFileSync(log, '');
    const w = new Writer(log);
    w.write(100);
    const r = h.start({ include: [`${h.dir}/app.log*`] });
    h.advance(10);
    // written, then copied and truncated away before the source reads again
    w.write(50);
    await logrotate(h, `${log} {\n  rotate 3\n  copytruncate\n  missingok\n}\n`);
    w.write(20);
    for (let i = 0; i < 5; i++) h.advance(1100);
    expect(numbers(r).sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 170 }, (_, i) => i));
  });

  it('compress: the gzip file of a rotation is not read again when excluded', async () => {
    const log = h.path('app.log');
    const w = new Writer(log);
    writeFileSync(log, '');
    w.write(30);
    const r = h.start({ include: [`${h.dir}/app.log*`], exclude: [`${h.dir}/*.gz`] });
    h.advance(10);
    await runWhile(h, r, w, logrotate(h, `${log} {\n  rotate 3\n  create\n  compress\n  missingok\n}\n`));
    expect(readdirSync(h.dir)).to.include('app.log.1.gz');
    expect(numbers(r)).to.deep.equal(Array.from({ length: w.next }, (_, i) => i));
  });

  const rotatedWhileBlocked = (o: Record<string, unknown>) => {
    // more lines than one batch holds
    writeFileSync(h.path('app.log'), `${Array.from({ length: 1000 }, (_, i) => `line ${i}`).join('\n')}\n`);
    // the output takes one batch at a time: the gate closes after each
    const r = h.start({ max_read_bytes: 64, ...o }, { onBatch: (ctx) => ctx.gate.close() });
    r.ctx.gate.close();
    h.advance(10);
    renameSync(h.path('app.log'), h.path('app.log.1'));
    h.advance(1500);
    // the next discovery misses it: rotated away
    r.ctx.gate.open();
    h.advance(1);
    h.advance(5000);
    r.ctx.gate.open();
    h.advance(1);
    for (let i = 0; i < 100; i++) {
      r.ctx.gate.open();
      h.advance(1);
    }
    return r;
  };

  it('rotate_wait_secs: a rotated file is let go that long after it was missed, even with lines left', () => {
    const r = rotatedWhileBlocked({ rotate_wait_secs: 1 });
    // one round when it was missed, one more after the wait: then it is let go
    expect(r.batches.length).to.equal(2);
    expect(r.ctx.metric('files_unwatched_total')).to.equal(1);
    expect(r.ctx.lines.some((l) => l.includes('rotate_wait_secs elapsed'))).to.equal(true);
  });

  it('rotate_wait_secs by default: a rotated file is read to its end first', () => {
    const r = rotatedWhileBlocked({});
    expect(r.messages()).to.have.length(1000);
    expect(r.ctx.metric('files_unwatched_total')).to.equal(1);
  });

  it('a file deleted while being read is read to its end, then let go', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`);
    writeFileSync(h.path('gone.log'), `${lines.join('\n')}\nno delimiter`);
    const r = h.start({ max_read_bytes: 32 });
    r.ctx.gate.close();
    h.advance(10);
    unlinkSync(h.path('gone.log'));
    r.ctx.gate.open();
    h.advance(1500);
    // a last line the writer never finished is handed out when the file is let go
    expect(r.messages()).to.deep.equal([...lines, 'no delimiter']);
    expect(r.ctx.metric('files_unwatched_total')).to.equal(1);
  });

  it('a truncated file is read again from its start (checksum: as the new file it is)', () => {
    writeFileSync(h.path('t.log'), 'old 1\nold 2\n');
    const r = h.start();
    h.advance(10);
    truncateSync(h.path('t.log'), 0);
    h.advance(300);
    appendFileSync(h.path('t.log'), 'new 1\n');
    h.advance(2500);
    appendFileSync(h.path('t.log'), 'new 2\n');
    h.advance(300);
    expect(r.messages()).to.deep.equal(['old 1', 'old 2', 'new 1', 'new 2']);
  });

  it('device_and_inode: a truncated file is read again from its start', () => {
    writeFileSync(h.path('t.log'), 'old 1\nold 2\n');
    const r = h.start({ fingerprint: { strategy: 'device_and_inode' } });
    h.advance(10);
    truncateSync(h.path('t.log'), 0);
    appendFileSync(h.path('t.log'), 'new\n');
    h.advance(300);
    expect(r.messages()).to.deep.equal(['old 1', 'old 2', 'new']);
  });
});
