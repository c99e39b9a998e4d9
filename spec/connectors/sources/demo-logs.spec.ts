import { expect } from 'chai';
import { lastValueFrom, map, toArray, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { sources } from '../../../connectors/compose.js';
import type { EventBatch, LogEvent } from '../../../lib/event.js';
import { demoLine } from '../../../connectors/sources/demo_logs/lines.js';

const take = async (opts: Record<string, unknown>) => (await lastValueFrom((sources.demo_logs!(opts) as Observable<EventBatch>).pipe(toArray()))).flat() as LogEvent[];

describe('demo_logs source', () => {
  const shapes: [string, RegExp][] = [
    ['apache_common', /^\d+\.\d+\.\d+\.\d+ - \S+ \[\d\d\/\w{3}\/\d{4}:\d\d:\d\d:\d\d \+0000\] "[A-Z]+ \S+ HTTP\/1\.1" \d{3} \d+$/],
    ['apache_error', /^\[\w{3} \w{3} \d\d \d\d:\d\d:\d\d \d{4}\] \[\w+\] \[pid \d+\] \[client [\d.]+:\d+\] .+$/],
    ['syslog', /^<\d+>1 \d{4}-\d\d-\d\dT[\d:.]+Z \S+ \S+ \d+ ID\d+ - .+$/],
    ['bsd_syslog', /^<\d+>\w{3} [ \d]\d \d\d:\d\d:\d\d \S+ \S+\[\d+\]: .+$/],
  ];
  for (const [format, re] of shapes) {
    it(`${format} lines have the format's shape`, () => {
      for (let i = 0; i < 50; i++) expect(demoLine(format as 'syslog', new Date(), Math.random)).to.match(re);
    });
  }

  it('json lines parse as JSON objects', () => {
    const o = JSON.parse(demoLine('json', new Date(), Math.random)) as Record<string, unknown>;
    expect(o).to.include.keys('host', 'method', 'request', 'status', 'bytes');
  });

  it('emits exactly `count` events with message, timestamp, host and source_type', async () => {
    const events = await take({ format: 'json', interval: 0, count: 2345 });
    expect(events).to.have.length(2345);
    expect(events[0]!.fields).to.include.keys('message', 'timestamp', 'host', 'source_type');
    expect(events[0]!.fields.source_type).to.equal('demo_logs');
    expect(events[0]!.meta.sourceId).to.equal('demo_logs');
  });

  it('shuffle picks from `lines`, numbered with `sequence`', async () => {
    const events = await take({ format: 'shuffle', lines: ['only'], sequence: true, interval: 0, count: 3 });
    expect(events.map((e) => e.fields.message)).to.deep.equal(['0 only', '1 only', '2 only']);
  });

  it('emits one event per interval in virtual time', () => {
    const rx = new TestScheduler((a, e) => {
      expect(a).to.deep.equal(e);
    });
    rx.run(({ expectObservable }) => {
      const src = sources.demo_logs!({ format: 'shuffle', lines: ['x'], interval: 1, count: 3 }, { scheduler: rx }) as Observable<EventBatch>;
      expectObservable(src.pipe(map((b) => b.map((e) => (e as LogEvent).fields.message)))).toBe('a 999ms a 999ms (a|)', { a: ['x'] });
    });
  });
});
