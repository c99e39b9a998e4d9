/**
 * Faults between the cloudw_stream sink and the stream: throttling of whole calls, 5xx, 429,
 * connection resets and stalls past `request.timeout_secs`. Each is retried with backoff and the
 * stream ends up holding every event exactly once (faults are injected before the call reaches
 * kinesalite, so a failed call stored nothing).
 */
import { expect } from 'chai';
import { of } from 'rxjs';
import { testSinkContext } from '../../../helpers/sink-context.js';
import type { Fault } from '../../../peers/http-peer.js';
import { type KinesisFront, type Kinesalite, startKinesalite, startKinesisFront } from '../../../peers/kinesis-front.js';
import { FRONT_KEYS, count, fast, log, runSink, streamConfig } from './harness.js';

describe('connectors/sinks/cloudw_stream: faults', function () {
  this.timeout(60_000);
  let kinesis: Kinesalite;
  let front: KinesisFront;
  let n = 0;

  before(async () => {
    kinesis = await startKinesalite();
    front = await startKinesisFront(kinesis.url, FRONT_KEYS);
  });
  after(async () => {
    await front.close();
    await kinesis.close();
  });
  beforeEach(() => {
    front.puts.length = 0;
    front.requests.length = 0;
    front.fault = undefined;
    front.failRecords = undefined;
  });

  const throttled: Fault = { status: 400, headers: { 'content-type': 'application/x-amz-json-1.1' }, body: JSON.stringify({ __type: 'ProvisionedThroughputExceededException', message: 'Rate exceeded for stream' }) };
  const cases: [string, Fault, Record<string, number>?][] = [
    ['throttling (ProvisionedThroughputExceededException)', throttled],
    ['HTTP 500 InternalFailure', { status: 500, headers: { 'content-type': 'application/x-amz-json-1.1' }, body: JSON.stringify({ __type: 'InternalFailure' }) }],
    ['HTTP 503 without a body', 503],
    ['HTTP 429', 429],
    ['a connection reset', 'reset'],
    ['a stall past request.timeout_secs', 'stall', { timeout_secs: 0.3 }],
  ];
  for (const [what, fault, request] of cases) {
    it(`${what}: retried until accepted, zero lost, zero duplicated`, async () => {
      const name = `f${n++}`;
      await kinesis.createStream(name, 1);
      const ctx = testSinkContext('cloudw_stream');
      // the first three calls fail, whatever they are
      let calls = 0;
      front.fault = () => (calls++ < 3 ? fault : undefined);
      const events = Array.from({ length: 50 }, (_, i) => log(`m${i}`, { i }));
      const ds = await runSink(fast(streamConfig(front.url, name, { batch: { max_events: 20 } }), request ?? {}), of(events), ctx);
      expect(count(ds, 'delivered')).to.equal(50);
      expect(count(ds, 'rejected') + count(ds, 'errored')).to.equal(0);
      const back = (await kinesis.readAll(name)).map((r) => (JSON.parse(r.data.toString()) as { i: number }).i).sort((a, b) => a - b);
      expect(back).to.deep.equal(events.map((_, i) => i));
      expect(front.requests.length).to.equal(3 + 3, 'three failed attempts, then the three calls');
      expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(3);
    });
  }

  it('a 400 ValidationException is not retried: rejected and counted', async () => {
    const name = `f${n++}`;
    await kinesis.createStream(name, 1);
    const ctx = testSinkContext('cloudw_stream');
    front.fault = () => ({ status: 400, headers: { 'content-type': 'application/x-amz-json-1.1' }, body: JSON.stringify({ __type: 'ValidationException', message: 'bad' }) });
    const ds = await runSink(fast(streamConfig(front.url, name)), of([log('a'), log('b')]), ctx);
    expect(count(ds, 'rejected')).to.equal(2);
    expect(front.requests).to.have.length(1);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(1);
  });

  it('request.retry_attempts bounds the retries; the events end errored', async () => {
    const name = `f${n++}`;
    await kinesis.createStream(name, 1);
    front.fault = () => 503;
    const ds = await runSink(fast(streamConfig(front.url, name), { retry_attempts: 2 }), of([log('a')]));
    expect(count(ds, 'errored')).to.equal(1);
    expect(front.requests).to.have.length(3);
  });

  it('a partial failure with a throttled whole call in between still ends with every record once', async () => {
    const name = `f${n++}`;
    await kinesis.createStream(name, 2);
    front.failRecords = (_, i) => (i === 0 ? new Map([0, 2, 4, 6, 8].map((k) => [k, 'ProvisionedThroughputExceededException'])) : undefined);
    let calls = 0;
    front.fault = () => (calls++ === 1 ? throttled : undefined);
    const ds = await runSink(fast(streamConfig(front.url, name)), of(Array.from({ length: 10 }, (_, i) => log(`m${i}`, { i }))));
    expect(count(ds, 'delivered')).to.equal(10);
    const back = (await kinesis.readAll(name)).map((r) => (JSON.parse(r.data.toString()) as { i: number }).i).sort((a, b) => a - b);
    expect(back).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(front.puts.map((p) => p.records.length)).to.deep.equal([10, 5]);
  });
});
