/**
 * The file sink under bad events and a hostile environment: an error about one event rejects that
 * event and the sink goes on; an error of the environment is retried until it clears.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastValueFrom, of, toArray } from 'rxjs';
import * as v from 'valibot';
import { type Delivery, EventMetadata, LogEvent } from '../../../../lib/event.js';
import type { ObjectValue, Value } from '../../../../lib/value.js';
import { FileSinkConfig, buildFileSink } from '../../../../connectors/sinks/file/index.js';
import { makeDir } from '../../../../connectors/sinks/file/make-dir.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { repoRoot, weirArgs } from '../../../helpers/weir-process.js';

// the sink keeps only an event's metadata once encoded: messages are found again by it
const messageOf = new WeakMap<EventMetadata, Value>();
const log = (fields: ObjectValue) => {
  const e = new LogEvent(fields, new EventMetadata('in', 'test'));
  messageOf.set(e.meta, fields.message!);
  return e;
};
const parse = (x: Record<string, unknown>) => v.parse(FileSinkConfig, { type: 'file', inputs: ['in'], encoding: { codec: 'text' }, ...x });
const messages = (ds: Delivery[], status: Delivery['status']) =>
  ds.filter((d) => d.status === status).flatMap((d) => d.events.map((e) => messageOf.get(e.meta)));

describe('file sink: failures', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'weir-file-fail-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const run = async (events: LogEvent[][], path: string, extra: Record<string, unknown> = {}) => {
    const ctx = testSinkContext('file');
    const ds = await lastValueFrom(of(...events).pipe(buildFileSink(parse({ path, ...extra }), ctx), toArray()));
    return { ds, ctx };
  };

  it('a path that is a directory, has a NUL byte or a too long name rejects its events; the others are written', async () => {
    mkdirSync(join(dir, 'adir'));
    const batch = [
      log({ message: 'good1', name: 'ok' }),
      log({ message: 'isdir', name: 'adir' }),
      log({ message: 'nul', name: 'a\u0000b' }),
      log({ message: 'long', name: 'x'.repeat(300) }),
      log({ message: 'good2', name: 'ok' }),
    ];
    const { ds, ctx } = await run([batch, [log({ message: 'good3', name: 'ok' })]], join(dir, '{{ name }}'));
    expect(readFileSync(join(dir, 'ok'), 'utf8')).to.equal('good1\ngood2\ngood3\n');
    expect(messages(ds, 'rejected').sort()).to.deep.equal(['isdir', 'long', 'nul']);
    expect(messages(ds, 'delivered')).to.deep.equal(['good1', 'good2', 'good3']);
    expect(ctx.metric('component_errors_total', { error_type: 'writer_failed' })).to.equal(3);
  });

  it('an event nested thousands of levels deep is rejected by the encoder; its neighbours are written', async () => {
    let deep: Value = 'leaf';
    for (let i = 0; i < 20_000; i++) deep = { d: deep };
    const path = join(dir, 'out.log');
    const { ds, ctx } = await run([[log({ message: 'a' }), log({ message: 'deep', deep }), log({ message: 'b' })]], path, { encoding: { codec: 'json', only_fields: ['message', 'deep'] } });
    expect(readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l).message)).to.deep.equal(['a', 'b']);
    expect(messages(ds, 'rejected')).to.deep.equal(['deep']);
    expect(ctx.metric('component_errors_total', { error_type: 'encoder_failed', stage: 'sending' })).to.equal(1);
  });

  it('a path under /proc fails once instead of looping in mkdir', async () => {
    const path = join('/proc', 'weir-no-such', 'x', 'y.log');
    const { ds } = await run([[log({ message: 'p' })], [log({ message: 'q', name: 'ok' })]], path);
    expect(messages(ds, 'rejected')).to.deep.equal(['p', 'q']);
    await makeDir(join('/proc', 'weir-no-such', 'a')).then(
      () => expect.fail('created a folder under /proc'),
      (err: NodeJS.ErrnoException) => expect(err.code).to.be.a('string'),
    );
  });

  it('a path whose parent is a file rejects its events (ENOTDIR)', async () => {
    writeFileSync(join(dir, 'plain'), '');
    const { ds } = await run([[log({ message: 'x', name: 'plain/sub/f' }), log({ message: 'y', name: 'fine' })]], join(dir, '{{ name }}'));
    expect(messages(ds, 'rejected')).to.deep.equal(['x']);
    expect(readFileSync(join(dir, 'fine'), 'utf8')).to.equal('y\n');
  });

  it('out of file descriptors (ulimit -n 256, 1,000 paths): closes other files, retries, loses nothing (daemon)', function () {
    const cfg = join(dir, 'p.toml');
    const out = join(dir, 'out');
    writeFileSync(
      cfg,
      `[sources.in]\ntype = "stdin"\ndecoding.codec = "json"\n\n[sinks.f]\ntype = "file"\ninputs = ["in"]\npath = "${out}/{{ p }}.log"\nencoding.codec = "text"\n`,
    );
    const lines: string[] = [];
    for (let round = 0; round < 3; round++) for (let p = 0; p < 1000; p++) lines.push(JSON.stringify({ message: `r${round}`, p: String(p) }));
    const { cmd, argv } = weirArgs(['--config', cfg]);
    const quoted = [cmd, ...argv].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    let stdout = '';
    try {
      stdout = execFileSync('bash', ['-c', `ulimit -n 256 && exec ${quoted} 2>&1`], { cwd: repoRoot, input: lines.join('\n') + '\n', encoding: 'utf8', timeout: 60_000 });
    } catch (err) {
      expect.fail(`weir failed: ${(err as { stdout?: string }).stdout ?? err}`);
    }
    expect(stdout).to.contain('0 events lost');
    expect(existsSync(out)).to.equal(true);
    const files = readdirSync(out);
    expect(files).to.have.length(1000);
    for (const f of files) expect(readFileSync(join(out, f), 'utf8')).to.equal('r0\nr1\nr2\n');
  });
});
