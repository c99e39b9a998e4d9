import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Subject, VirtualTimeScheduler, lastValueFrom, of, toArray } from 'rxjs';
import * as v from 'valibot';
import { mapIssue } from '../../../../lib/config/issues.js';
import { type Delivery, EventMetadata, LogEvent } from '../../../../lib/event.js';
import { type ObjectValue, Timestamp } from '../../../../lib/value.js';
import { FileSinkConfig, buildFileSink } from '../../../../connectors/sinks/file/index.js';
import { HELD_MAX_BYTES, HOLD_MS, WRITE_AT_BYTES } from '../../../../connectors/sinks/file/sink.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { until } from '../../../helpers/wait.js';

const log = (fields: ObjectValue) => new LogEvent(fields, new EventMetadata('in', 'test'));
const metas = (events: readonly { meta: EventMetadata }[]) => events.map((e) => e.meta);
const parse = (x: Record<string, unknown>) => v.parse(FileSinkConfig, { type: 'file', inputs: ['in'], encoding: { codec: 'text' }, ...x });

describe('file sink', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'weir-file-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('appends newline-framed events to an existing file and delivers with bytes written', async () => {
    const path = join(dir, 'out.log');
    writeFileSync(path, 'existing\n');
    const ctx = testSinkContext('file');
    const batch = [log({ message: 'a' }), log({ message: 'b' }), log({ message: 'c' })];
    // both batches are held and written together at the end of the input
    const ds = await lastValueFrom(of(batch.slice(0, 2), batch.slice(2)).pipe(buildFileSink(parse({ path }), ctx), toArray()));
    expect(readFileSync(path, 'utf8')).to.equal('existing\na\nb\nc\n');
    expect(ds).to.have.length(1);
    expect(ds[0]).to.deep.include({ status: 'delivered', bytes: 6 });
    expect(metas(ds[0]!.events)).to.deep.equal(metas(batch));
    expect(ctx.metric('open_files')).to.equal(0);
  });

  it('renders the path template per event: field references and strftime, creating directories', async () => {
    const ts = new Timestamp(Date.UTC(2024, 4, 1, 10));
    const events = [log({ message: '1', app: 'web', timestamp: ts }), log({ message: '2', app: 'db', timestamp: ts }), log({ message: '3', app: 'web', timestamp: ts })];
    const ctx = testSinkContext('file');
    const cfg = parse({ path: join(dir, '{{ app }}', '%Y-%m-%d.log'), encoding: { codec: 'json', only_fields: ['message'] }, timezone: 'UTC' });
    await lastValueFrom(of(events).pipe(buildFileSink(cfg, ctx), toArray()));
    expect(readFileSync(join(dir, 'web', '2024-05-01.log'), 'utf8')).to.equal('{"message":"1"}\n{"message":"3"}\n');
    expect(readFileSync(join(dir, 'db', '2024-05-01.log'), 'utf8')).to.equal('{"message":"2"}\n');
  });

  it('events whose path cannot be rendered are rejected and counted', async () => {
    const ctx = testSinkContext('file');
    const ok = log({ message: 'ok', app: 'x' });
    const missing = log({ message: 'no app' });
    const ds = await lastValueFrom(of([ok, missing]).pipe(buildFileSink(parse({ path: join(dir, '{{ app }}.log') }), ctx), toArray()));
    // the rejection is known at once; the delivery once the held line was written (at the end here)
    expect(ds.map((d) => [d.status, metas(d.events)])).to.deep.equal([
      ['rejected', [missing.meta]],
      ['delivered', [ok.meta]],
    ]);
    expect(ctx.metric('component_errors_total', { error_type: 'template_failed' })).to.equal(1);
    expect(readFileSync(join(dir, 'x.log'), 'utf8')).to.equal('ok\n');
  });

  it('gzip: every write is a gzip member, valid on its own; the file decompresses to all lines', async () => {
    const path = join(dir, 'out.log.gz');
    const { ctx, input, ds, runTo } = held({ path, compression: 'gzip' });
    input.next([log({ message: 'a' })]);
    await runTo(HOLD_MS);
    await until(() => ds.length === 1, 2000, 'first write');
    expect(gunzipSync(readFileSync(path)).toString()).to.equal('a\n');
    input.next([log({ message: 'b' })]);
    input.next([log({ message: 'c' })]);
    input.complete();
    await until(() => ds.length === 2, 2000, 'write at the end');
    const raw = readFileSync(path);
    expect(raw[0]).to.equal(0x1f);
    expect(gunzipSync(raw).toString()).to.equal('a\nb\nc\n');
    expect(ds.reduce((n, d) => n + d.bytes, 0)).to.equal(raw.length);
    expect(ctx.metric('component_errors_total')).to.equal(0);
  });

  /** A sink on virtual time whose input the test drives; `runTo(ms)` runs the timers due by then (of virtual time). */
  const held = (options: Record<string, unknown>) => {
    const scheduler = new VirtualTimeScheduler();
    const ctx = testSinkContext('file', { scheduler });
    const input = new Subject<LogEvent[]>();
    const ds: Delivery[] = [];
    let completed = false;
    input.pipe(buildFileSink(parse(options), ctx)).subscribe({ next: (d) => ds.push(d), complete: () => (completed = true) });
    // the batches given so far are taken in first (a batch is held on a later microtask)
    const runTo = async (ms: number) => {
      await new Promise((r) => setImmediate(r));
      scheduler.maxFrames = ms;
      scheduler.flush();
    };
    return { ctx, input, ds, runTo, isComplete: () => completed };
  };
  const lines = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').slice(0, -1) : []);

  it('more paths than events per batch: lines are held across batches, written per file in order, delivered only once written', async () => {
    const partitions = 40;
    const { input, ds, runTo } = held({ path: join(dir, '{{ p }}.log') });
    const delivered = new Set<string>();
    const written: string[] = [];
    const sent: LogEvent[] = [];
    let n = 0;
    // 30 batches of 8 events cycling through the 40 paths: each path gets one event every 5 batches
    for (let b = 0; b < 30; b++) {
      const batch = Array.from({ length: 8 }, () => {
        const p = n % partitions;
        return log({ message: `${p}:${n++}`, p: String(p) });
      });
      sent.push(...batch);
      input.next(batch);
    }
    await runTo(HOLD_MS - 1);
    // nothing was written or delivered before the hold ran out
    expect(ds).to.deep.equal([]);
    expect(readdirSync(dir)).to.deep.equal([]);
    await runTo(HOLD_MS);
    await until(() => ds.length > 0, 2000, 'held write');
    // every delivered event's line is in its file when the delivery is seen
    for (let p = 0; p < partitions; p++) written.push(...lines(join(dir, `${p}.log`)));
    for (const d of ds) for (const e of d.events) delivered.add(sent.find((s) => s.meta === e.meta)!.fields.message as string);
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    expect([...delivered].sort()).to.deep.equal(written.sort());
    expect(delivered.size).to.equal(240);
    for (let p = 0; p < partitions; p++) {
      const seqs = lines(join(dir, `${p}.log`)).map((l) => Number(l.split(':')[1]));
      expect(seqs).to.deep.equal([...seqs].sort((a, b) => a - b));
      expect(seqs).to.have.length(6);
    }
    input.complete();
  });

  it('a path that reaches 4 KiB is written at the end of its batch, in one write; the others wait for the hold', async () => {
    const { input, ds } = held({ path: join(dir, '{{ p }}.log') });
    // held size counts the encoded text, not the framing: 4 lines of 1,024 characters reach it; a
    // batch of four times that is still written in one write, at the end of the batch
    const big = 'x'.repeat(1024);
    const many = Array.from({ length: (4 * WRITE_AT_BYTES) / 1024 }, () => log({ message: big, p: 'big' }));
    input.next([...many, log({ message: 'small', p: 'small' })]);
    await until(() => ds.length === 1, 2000, 'write of the full path');
    expect(ds[0]!.events).to.have.length(many.length);
    expect(readFileSync(join(dir, 'big.log')).length).to.equal(many.length * 1025);
    expect(existsSync(join(dir, 'small.log'))).to.equal(false);
    input.complete();
    await until(() => ds.length === 2, 2000, 'write at the end');
    expect(readFileSync(join(dir, 'small.log'), 'utf8')).to.equal('small\n');
  });

  it('everything held is written once the total reaches 8 MiB (memory stays bounded)', async () => {
    const { input, ds } = held({ path: join(dir, '{{ p }}.log') });
    // 2,800 paths of 3 lines of 1 KiB: each path under 4 KiB, the third batch takes the total past 8 MiB
    const line = 'y'.repeat(1024);
    const batches = Array.from({ length: 3 }, () => Array.from({ length: 2800 }, (_, p) => log({ message: line, p: String(p) })));
    input.next(batches[0]!);
    input.next(batches[1]!);
    await new Promise((r) => setImmediate(r));
    expect(ds).to.deep.equal([]);
    input.next(batches[2]!);
    await until(() => ds.length === 1, 10_000, 'write of everything held');
    expect(ds[0]!.events).to.have.length(3 * 2800);
    expect(2 * 2800 * 1024).to.be.below(HELD_MAX_BYTES);
    expect(3 * 1024).to.be.below(WRITE_AT_BYTES);
    expect(readFileSync(join(dir, '7.log')).length).to.equal(3 * 1025);
    input.complete();
  });

  it('a write that fails rejects its events when the hold runs out; the other paths are delivered', async () => {
    writeFileSync(join(dir, 'plain'), '');
    const { ctx, input, ds, runTo } = held({ path: join(dir, '{{ p }}') });
    const bad = log({ message: 'bad', p: 'plain/f' });
    const good = log({ message: 'good', p: 'fine' });
    input.next([bad, good]);
    await runTo(HOLD_MS);
    await until(() => ds.length === 2, 2000, 'held write');
    expect(ds.map((d) => [d.status, metas(d.events)])).to.deep.equal([
      ['delivered', [good.meta]],
      ['rejected', [bad.meta]],
    ]);
    expect(ctx.metric('component_errors_total', { error_type: 'writer_failed' })).to.equal(1);
    input.complete();
  });

  it('a FIFO waiting for its reader does not block the event loop: written once the reader comes', async () => {
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const { input, ds, runTo } = held({ path: join(dir, '{{ p }}') });
    const toPipe = log({ message: 'through the pipe', p: 'pipe' });
    const toFile = log({ message: 'to the file', p: 'file' });
    input.next([toPipe, toFile]);
    await runTo(HOLD_MS);
    // a synchronous open would wait for the reader on the event loop, so the reader below could never open
    await new Promise((r) => setTimeout(r, 50));
    expect(ds).to.deep.equal([]);
    const read = new Promise<string>((resolve) => createReadStream(fifo, { encoding: 'utf8' }).on('data', (d) => resolve(d.toString())));
    expect(await read).to.equal('through the pipe\n');
    await until(() => ds.length === 1, 2000, 'delivery');
    expect(metas(ds[0]!.events)).to.deep.equal([toPipe.meta, toFile.meta]);
    expect(readFileSync(join(dir, 'file'), 'utf8')).to.equal('to the file\n');
    input.complete();
  });

  it('the end of the input writes everything held before completing and closes every file', async () => {
    const { ctx, input, ds, isComplete } = held({ path: join(dir, '{{ p }}.log') });
    for (let i = 0; i < 10; i++) input.next([log({ message: `m${i}`, p: String(i % 3) })]);
    input.complete();
    await until(isComplete, 2000, 'completion');
    expect(ds.flatMap((d) => d.events)).to.have.length(10);
    expect(lines(join(dir, '0.log'))).to.deep.equal(['m0', 'm3', 'm6', 'm9']);
    expect(lines(join(dir, '2.log'))).to.deep.equal(['m2', 'm5', 'm8']);
    expect(ctx.metric('open_files')).to.equal(0);
  });

  it('closes files idle for idle_timeout_secs', async () => {
    const { ctx, input, ds, runTo } = held({ path: join(dir, '{{ n }}.log'), idle_timeout_secs: 2 });
    input.next([log({ message: 'x', n: 'a' }), log({ message: 'y', n: 'b' })]);
    await runTo(HOLD_MS);
    await until(() => ds.length === 1, 2000, 'write');
    expect(ctx.metric('open_files')).to.equal(2);
    // opened and written at 100 ms, checked every second from then: open at 1,100 ms, closed at 2,100
    await runTo(HOLD_MS + 1000);
    await new Promise((r) => setTimeout(r, 50));
    expect(ctx.metric('open_files')).to.equal(2);
    await runTo(HOLD_MS + 2000);
    await until(() => ctx.metric('open_files') === 0, 2000, 'idle close');
    input.next([log({ message: 'z', n: 'a' })]);
    await runTo(2100 + HOLD_MS);
    await until(() => ds.length === 2, 2000, 'second write reopens');
    expect(readFileSync(join(dir, 'a.log'), 'utf8')).to.equal('x\nz\n');
    input.complete();
  });

  it('config: a malformed template is refused at load', () => {
    const r = v.safeParse(FileSinkConfig, { type: 'file', inputs: ['in'], path: '/tmp/{{ app', encoding: { codec: 'text' } });
    const msg = r.issues!.flatMap((i) => mapIssue(FileSinkConfig, i)).map((m) => `${m.path}: ${m.message}`);
    expect(msg[0]).to.match(/^path: invalid template .*unclosed/);
    const c = v.safeParse(FileSinkConfig, { type: 'file', inputs: ['in'], path: '/tmp/x', encoding: { codec: 'text' }, compression: 'zstd' });
    expect(c.issues!.flatMap((i) => mapIssue(FileSinkConfig, i))[0]!.message).to.equal('must be one of "none", "gzip"; got "zstd"');
    expect(parse({ path: '/tmp/x' })).to.deep.include({ idle_timeout_secs: 30, compression: 'none' });
  });
});
