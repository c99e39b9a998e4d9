import { expect } from 'chai';
import { lastValueFrom, of, toArray } from 'rxjs';
import { type EventBatch, type LogEvent, logEvent } from '../../lib/event.js';
import { toJSON } from '../../lib/value.js';
import { tokenize } from '../../operators/transforms/tokenizer/index.js';
import { reduce } from '../../operators/transforms/reduce/index.js';
import { throttle } from '../../operators/transforms/throttle/index.js';

const ACCESS = [
  '10.0.0.1 - alice [22/Nov/2026:10:00:00 +0000] "GET /a HTTP/1.1" 200 100',
  '10.0.0.2 - bob [22/Nov/2026:10:00:01 +0000] "GET /b HTTP/1.1" 404 7',
  '10.0.0.1 - alice [22/Nov/2026:10:00:02 +0000] "POST /login HTTP/1.1" 302 20',
  '10.0.0.1 - alice [22/Nov/2026:10:00:03 +0000] "GET /c HTTP/1.1" 500 1',
  '10.0.0.2 - bob [22/Nov/2026:10:00:04 +0000] "GET /d HTTP/1.1" 200 3',
];
const batchOf = (lines: string[]): EventBatch => lines.map((message) => logEvent({ message }, 'web', 'demo_logs'));
const fieldsOf = (batches: EventBatch[]) => batches.flat().map((e) => toJSON((e as LogEvent).fields));

describe('transforms as plain RxJS operators (no daemon, no config)', () => {
  it('tokenize, throttle and reduce compose in one pipe', async () => {
    // the example of docs/guides/programmatic-use.md
    const batches = await lastValueFrom(
      of(batchOf(ACCESS)).pipe(
        tokenize({
          fieldNames: ['client', 'ident', 'user', 'time', 'request', 'status', 'bytes'],
          types: { status: 'int', bytes: 'int', time: 'timestamp' },
        }),
        throttle({ threshold: 2, windowSecs: 60, keyField: '{{ client }}' }),
        reduce({ groupBy: ['client'], mergeStrategies: { request: 'array', status: 'max' } }),
        toArray(),
      ),
    );
    // alice's third request is over the threshold; the input completing flushes both groups
    expect(fieldsOf(batches)).to.deep.equal([
      {
        client: '10.0.0.1',
        ident: null,
        user: 'alice',
        time: '2026-11-22T10:00:00Z',
        time_end: '2026-11-22T10:00:02Z',
        request: ['GET /a HTTP/1.1', 'POST /login HTTP/1.1'],
        status: 302,
        bytes: 120,
      },
      {
        client: '10.0.0.2',
        ident: null,
        user: 'bob',
        time: '2026-11-22T10:00:01Z',
        time_end: '2026-11-22T10:00:04Z',
        request: ['GET /b HTTP/1.1', 'GET /d HTTP/1.1'],
        status: 404,
        bytes: 10,
      },
    ]);
  });

  it('tokenize alone: one event out per event in, typed', async () => {
    const [batch] = await lastValueFrom(of(batchOf(ACCESS.slice(0, 1))).pipe(tokenize({ fieldNames: ['client', 'ident', 'user', 'time', 'request', 'status'], types: { status: 'int' }, dropField: false }), toArray()));
    expect(fieldsOf([batch!])).to.deep.equal([{ message: ACCESS[0], client: '10.0.0.1', ident: null, user: 'alice', time: '22/Nov/2026:10:00:00 +0000', request: 'GET /a HTTP/1.1', status: 200 }]);
  });

  it('throttle alone: counts what passes per key', async () => {
    const batches = await lastValueFrom(of(batchOf(ACCESS), batchOf(ACCESS)).pipe(tokenize({ fieldNames: ['client'] }), throttle({ threshold: 3, windowSecs: 60, keyField: '{{ client }}' }), toArray()));
    // 6 events of 10.0.0.1 and 4 of 10.0.0.2 over two batches: 3 of each pass, the first 3 of each
    expect(batches.map((b) => b.map((e) => (e as LogEvent).fields.client))).to.deep.equal([
      ['10.0.0.1', '10.0.0.2', '10.0.0.1', '10.0.0.1', '10.0.0.2'],
      ['10.0.0.2'],
    ]);
  });

  it('reduce alone: ends_when closes a transaction, completion flushes the rest', async () => {
    const batch = [
      logEvent({ txn: 't1', n: 1 }),
      logEvent({ txn: 't2', n: 10 }),
      logEvent({ txn: 't1', n: 2, done: true }),
      logEvent({ txn: 't2', n: 20 }),
    ];
    const batches = await lastValueFrom(of(batch).pipe(reduce({ groupBy: ['txn'], endsWhen: (e) => e.type === 'log' && e.fields.done === true }), toArray()));
    expect(batches.map((b) => fieldsOf([b]))).to.deep.equal([[{ txn: 't1', n: 3, done: true }], [{ txn: 't2', n: 30 }]]);
  });
});
