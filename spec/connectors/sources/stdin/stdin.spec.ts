import { expect } from 'chai';
import { hostname } from 'node:os';
import { PassThrough } from 'node:stream';
import { lastValueFrom, toArray } from 'rxjs';
import * as v from 'valibot';
import type { LogEvent } from '../../../../lib/event.js';
import { StdinSourceConfig, buildStdinSource } from '../../../../connectors/sources/stdin/index.js';
import { until } from '../../../helpers/wait.js';
import { testSourceContext } from '../source-context.js';

const parse = (x: Record<string, unknown> = {}) => v.parse(StdinSourceConfig, { type: 'stdin', ...x });

describe('stdin source', () => {
  it('emits one event per line with host and source_type, and completes at EOF', async () => {
    const input = new PassThrough();
    const ctx = testSourceContext('stdin');
    const done = lastValueFrom(buildStdinSource(parse(), ctx, input).pipe(toArray()));
    input.write('one\ntw');
    input.end('o\nthree');
    const batches = await done;
    const events = batches.flat() as LogEvent[];
    expect(events.map((e) => e.fields.message)).to.deep.equal(['one', 'two', 'three']);
    expect(events[0]!.fields).to.deep.include({ host: hostname(), source_type: 'stdin' });
    expect(batches.length).to.be.at.most(3);
    expect(ctx.metric('component_received_bytes_total')).to.equal(Buffer.byteLength('one\ntwo\nthree'));
  });

  it('json decoding with a custom host key; bad lines are counted', async () => {
    const input = new PassThrough();
    const ctx = testSourceContext('stdin');
    const done = lastValueFrom(buildStdinSource(parse({ decoding: { codec: 'json' }, host_key: 'machine' }), ctx, input).pipe(toArray()));
    input.end('{"a":1}\n{oops\n');
    const events = (await done).flat() as LogEvent[];
    expect(events).to.have.length(1);
    expect(events[0]!.fields).to.deep.include({ a: 1, machine: hostname() });
    expect(ctx.metric('component_errors_total')).to.equal(1);
  });

  it('pauses the input while the gate is closed', async () => {
    const input = new PassThrough();
    const ctx = testSourceContext('stdin');
    const got: LogEvent[] = [];
    const sub = buildStdinSource(parse(), ctx, input).subscribe((b) => got.push(...(b as LogEvent[])));
    ctx.gate.close();
    input.write('a\n');
    await until(() => got.length === 1, 2000, 'first line');
    expect(input.isPaused()).to.equal(true);
    ctx.gate.open();
    expect(input.isPaused()).to.equal(false);
    sub.unsubscribe();
  });

  it('completes on shutdown', async () => {
    const input = new PassThrough();
    const ctx = testSourceContext('stdin');
    const done = lastValueFrom(buildStdinSource(parse(), ctx, input).pipe(toArray()));
    input.write('partial');
    ctx.shutdown.next();
    expect(((await done).flat() as LogEvent[]).map((e) => e.fields.message)).to.deep.equal(['partial']);
  });
});
