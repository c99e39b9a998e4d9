import { expect } from 'chai';
import { lastValueFrom, toArray } from 'rxjs';
import { sources, transforms, sinks } from '../../index.js';
import { ConfigError } from '../../lib/errors.js';
import type { Delivery, EventBatch, LogEvent } from '../../lib/event.js';

describe('programmatic composition (the example of docs/guides/programmatic-use.md)', () => {
  it('demo_logs -> filter -> blackhole runs with no daemon', async () => {
    const deliveries = await lastValueFrom(
      (sources.demo_logs!({ format: 'json', interval: 0, count: 2500 }) as import('rxjs').Observable<EventBatch>).pipe(
        transforms.filter!({ condition: { type: 'is_log' } }) as import('rxjs').OperatorFunction<EventBatch, EventBatch>,
        sinks.blackhole!({ print_interval_secs: 0 }),
        toArray(),
      ),
    );
    const total = deliveries.reduce((n: number, d: Delivery) => n + d.events.length, 0);
    expect(total).to.equal(2500);
    const first = deliveries[0]!.events[0] as LogEvent;
    expect(JSON.parse(first.fields.message as string)).to.have.property('method');
  });

  it('rejects bad options with the same located errors as config files', () => {
    expect(() => sources.demo_logs!({ format: 'xml' })).to.throw(ConfigError, /sources\.demo_logs\.format: must be one of/);
  });
});

describe('package entry: the remap language', () => {
  it('compile() then run() as docs/guides/programmatic-use.md shows; a bad program throws CompileError', async () => {
    const { compile, CompileError } = await import('../../index.js');
    const program = compile('.level = upcase!(.level)\n.seen = true');
    const r = program.run({ message: 'hi', level: 'warn' });
    expect(r.ok).to.equal(true);
    expect(r.target).to.deep.equal({ message: 'hi', level: 'WARN', seen: true });
    expect(() => compile('.x = upcase(.level)')).to.throw(CompileError);
  });
});
