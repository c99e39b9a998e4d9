import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Subject, VirtualTimeScheduler, lastValueFrom, of, toArray } from 'rxjs';
import * as v from 'valibot';
import { mapIssue } from '../../../../lib/config/issues.js';
import { type Delivery, EventMetadata, LogEvent } from '../../../../lib/event.js';
import { type ObjectValue, Timestamp } from '../../../../lib/value.js';
import { FileSinkConfig, buildFileSink } from '../../../../connectors/sinks/file/index.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { until } from '../../../helpers/wait.js';

const log = (fields: ObjectValue) => new LogEvent(fields, new EventMetadata('in', 'test'));
const parse = (x: Record<string, unknown>) => v.parse(FileSinkConfig, { type: 'file', inputs: ['in'], encoding: { codec: 'text' }, ...x });

describe('file sink', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'weir-file-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('appends newline-framed events to an existing file and delivers with bytes written', async () => {
    const path = join(dir, 'out.log');
    writeFileSync(path, 'existing\n');
    const ctx = testSinkContext('file');
    const batch = [log({ message: 'a' }), log({ message: 'b' })];
    const ds = await lastValueFrom(of(batch, [log({ message: 'c' })]).pipe(buildFileSink(parse({ path }), ctx), toArray()));
    expect(readFileSync(path, 'utf8')).to.equal('existing\na\nb\nc\n');
    expect(ds[0]).to.deep.equal({ status: 'delivered', events: batch, bytes: 4 });
    expect(ds).to.have.length(2);
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
    expect(ds.map((d) => [d.status, d.events])).to.deep.equal([
      ['delivered', [ok]],
      ['rejected', [missing]],
    ]);
    expect(ctx.metric('component_errors_total', { error_type: 'template_failed' })).to.equal(1);
    expect(readFileSync(join(dir, 'x.log'), 'utf8')).to.equal('ok\n');
  });

  it('gzip: every batch is a gzip member; the file decompresses to all lines', async () => {
    const path = join(dir, 'out.log.gz');
    const ctx = testSinkContext('file');
    const ds = await lastValueFrom(of([log({ message: 'a' })], [log({ message: 'b' })]).pipe(buildFileSink(parse({ path, compression: 'gzip' }), ctx), toArray()));
    const raw = readFileSync(path);
    expect(raw[0]).to.equal(0x1f);
    expect(gunzipSync(raw).toString()).to.equal('a\nb\n');
    expect(ds.reduce((n, d) => n + d.bytes, 0)).to.equal(raw.length);
  });

  it('closes files idle for idle_timeout_secs', async () => {
    const scheduler = new VirtualTimeScheduler();
    const ctx = testSinkContext('file', { scheduler });
    const input = new Subject<LogEvent[]>();
    const ds: Delivery[] = [];
    input.pipe(buildFileSink(parse({ path: join(dir, '{{ n }}.log'), idle_timeout_secs: 1 }), ctx)).subscribe((d) => ds.push(d));
    input.next([log({ message: 'x', n: 'a' }), log({ message: 'y', n: 'b' })]);
    await until(() => ds.length === 1, 2000, 'write');
    expect(ctx.metric('open_files')).to.equal(2);
    scheduler.flush();
    await until(() => ctx.metric('open_files') === 0, 2000, 'idle close');
    input.next([log({ message: 'z', n: 'a' })]);
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
