import { expect } from 'chai';
import { PassThrough, Writable } from 'node:stream';
import { Subject, lastValueFrom, of, toArray } from 'rxjs';
import * as v from 'valibot';
import { mapIssue } from '../../../../lib/config/issues.js';
import { type Delivery, EventMetadata, LogEvent } from '../../../../lib/event.js';
import type { ObjectValue } from '../../../../lib/value.js';
import { ConsoleSinkConfig, buildConsoleSink, consoleSink } from '../../../../connectors/sinks/console/index.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { until } from '../../../helpers/wait.js';

const log = (fields: ObjectValue) => new LogEvent(fields, new EventMetadata('in', 'test'));
const parse = (x: Record<string, unknown>) => v.parse(ConsoleSinkConfig, { type: 'console', inputs: ['in'], ...x });

function capture() {
  const out = new PassThrough();
  let text = '';
  out.on('data', (d: Buffer) => (text += d.toString()));
  return { out, text: () => text };
}

describe('console sink', () => {
  it('writes one json line per event and delivers each batch with its bytes', async () => {
    const { out, text } = capture();
    const ctx = testSinkContext('console');
    const a = [log({ message: 'a' }), log({ message: 'b' })];
    const b = [log({ message: 'c' })];
    const ds = await lastValueFrom(of(a, b).pipe(buildConsoleSink(parse({ encoding: { codec: 'json' } }), ctx, out), toArray()));
    expect(text()).to.equal('{"message":"a"}\n{"message":"b"}\n{"message":"c"}\n');
    expect(ds).to.deep.equal([
      { status: 'delivered', events: a, bytes: 32 },
      { status: 'delivered', events: b, bytes: 16 },
    ]);
  });

  it('text, logfmt and custom framing', async () => {
    for (const [cfg, expected] of [
      [{ encoding: { codec: 'text' } }, 'x y\n'],
      [{ encoding: { codec: 'logfmt' } }, 'message="x y"\n'],
      [{ encoding: { codec: 'text' }, framing: { method: 'character_delimited', character_delimited: { delimiter: ';' } } }, 'x y;'],
    ] as const) {
      const { out, text } = capture();
      await lastValueFrom(of([log({ message: 'x y' })]).pipe(buildConsoleSink(parse(cfg), testSinkContext('console'), out), toArray()));
      expect(text()).to.equal(expected);
    }
  });

  it('gelf: NUL-delimited; an event GELF refuses is rejected and counted, the rest written', async () => {
    const { out, text } = capture();
    const ctx = testSinkContext('console');
    const good = log({ message: 'm', host: 'h' });
    const bad = log({ message: 'no host' });
    const ds = await lastValueFrom(of([good, bad]).pipe(buildConsoleSink(parse({ encoding: { codec: 'gelf' } }), ctx, out), toArray()));
    expect(text()).to.equal('{"version":"1.1","short_message":"m","host":"h"}\0');
    expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([
      ['delivered', 1],
      ['rejected', 1],
    ]);
    expect(ctx.metric('component_errors_total', { error_type: 'encoder_failed' })).to.equal(1);
  });

  it('closes the demand gate while the stream is full and completes after the last write', async () => {
    const chunks: Buffer[] = [];
    let release: (() => void) | undefined;
    const slow = new Writable({
      highWaterMark: 4,
      write(chunk: Buffer, _enc, cb) {
        chunks.push(chunk);
        release = () => cb();
      },
    });
    const ctx = testSinkContext('console');
    const input = new Subject<LogEvent[]>();
    const ds: Delivery[] = [];
    let completed = false;
    input.pipe(buildConsoleSink(parse({ encoding: { codec: 'text' } }), ctx, slow)).subscribe({ next: (d) => ds.push(d), complete: () => (completed = true) });
    input.next([log({ message: 'first' })]);
    input.next([log({ message: 'second' })]);
    await until(() => chunks.length === 1, 2000, 'first write');
    expect(ctx.demand.isOpen).to.equal(false);
    input.complete();
    expect(completed).to.equal(false);
    release!();
    await until(() => chunks.length === 2, 2000, 'second write');
    release!();
    await until(() => completed, 2000, 'completion');
    expect(ds.map((d) => d.events.length)).to.deep.equal([1, 1]);
    expect(ctx.demand.isOpen).to.equal(true);
  });

  it('config: codec is required and the error lists allowed codecs', () => {
    const r = v.safeParse(ConsoleSinkConfig, { type: 'console', inputs: ['in'], encoding: { codec: 'csv' } });
    const msg = r.issues!.flatMap((i) => mapIssue(ConsoleSinkConfig, i)).map((m) => `${m.path}: ${m.message}`);
    expect(msg).to.deep.equal(['encoding.codec: must be one of "json", "ndjson", "text", "logfmt", "raw_message", "gelf", "native_json", "native"; got "csv"']);
    expect(parse({ encoding: { codec: 'json' } }).target).to.equal('stdout');
    expect(consoleSink.type).to.equal('console');
  });
});
