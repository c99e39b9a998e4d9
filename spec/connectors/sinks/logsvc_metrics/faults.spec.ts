import { expect } from 'chai';
import { of } from 'rxjs';
import { testSinkContext } from '../../../helpers/sink-context.js';
import type { Fault } from '../../../peers/http-peer.js';
import { type HumioPeer, startHumio } from '../../../peers/humio.js';
import { parseHecBody } from '../../../peers/hec-protocol.js';
import { count, counter } from '../../shared/hec/harness.js';
import { fast, logsvcConfig, runSink } from './harness.js';

const events = (n: number, from = 0) => Array.from({ length: n }, (_, i) => counter(`m${from + i}`, from + i));
/** Metric names of every request the service saw, failed attempts included. */
const sentNames = (peer: HumioPeer) => peer.requests.flatMap((r) => parseHecBody(r.raw.toString(), false).envelopes.map((e) => (e.event as { name: string }).name));

describe('connectors/sinks/logsvc_metrics: retries and faults', function () {
  this.timeout(30_000);
  let humio: HumioPeer;
  beforeEach(async () => {
    humio = await startHumio();
  });
  afterEach(() => humio.close());
  const failFirst = (n: number, fault: Fault) => {
    let seen = 0;
    humio.fault = () => (seen++ < n ? fault : undefined);
  };

  for (const status of [500, 503, 429]) {
    it(`retries ${status} with the same body and delivers once the service recovers`, async () => {
      failFirst(2, status);
      const ctx = testSinkContext('logsvc_metrics');
      const ds = await runSink(fast(logsvcConfig(humio.url)), of(events(3)), ctx);
      expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([['delivered', 3]]);
      expect(humio.requests).to.have.length(3);
      expect(new Set(humio.requests.map((r) => r.raw.toString())).size).to.equal(1);
      expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(2);
      expect(humio.events).to.have.length(3);
    });
  }

  it('400: rejected at once, counted, not retried', async () => {
    failFirst(1, { status: 400, body: '{"text":"Invalid data format","code":6}' });
    const ctx = testSinkContext('logsvc_metrics');
    const ds = await runSink(fast(logsvcConfig(humio.url)), of(events(2)), ctx);
    expect(humio.requests).to.have.length(1);
    expect(ds.map((d) => [d.status, d.events.length, d.bytes])).to.deep.equal([['rejected', 2, 0]]);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed', stage: 'sending' })).to.equal(1);
  });

  it('501 is not retried and ends errored; retry_attempts bounds the retries of a 503', async () => {
    failFirst(100, 501);
    expect((await runSink(fast(logsvcConfig(humio.url)), of(events(1))))[0]!.status).to.equal('errored');
    expect(humio.requests).to.have.length(1);
    failFirst(100, 503);
    expect((await runSink(fast(logsvcConfig(humio.url), { retry_attempts: 2 }), of(events(1))))[0]!.status).to.equal('errored');
    expect(humio.requests).to.have.length(4);
  });

  it('a connection reset is retried', async () => {
    failFirst(2, 'reset');
    const ds = await runSink(fast(logsvcConfig(humio.url)), of(events(1)));
    expect(ds[0]!.status).to.equal('delivered');
    expect(humio.requests).to.have.length(3);
  });

  it('a stall past request.timeout_secs aborts the attempt and retries it', async () => {
    failFirst(1, 'stall');
    const ctx = testSinkContext('logsvc_metrics');
    const ds = await runSink(fast(logsvcConfig(humio.url), { timeout_secs: 0.1 }), of(events(2)), ctx);
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    expect(humio.requests).to.have.length(2);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(1);
  });

  it('500/503/429, resets and stalls in rotation under adaptive concurrency, then recovery: nothing lost, duplicates counted', async () => {
    const faults: Fault[] = [500, 503, 429, 'reset', 'stall'];
    let served = 0;
    humio.fault = () => (served < 40 ? faults[served++ % faults.length] : undefined);
    const ctx = testSinkContext('logsvc_metrics');
    const input = of(...Array.from({ length: 30 }, (_, b) => events(10, b * 10)));
    const ds = await runSink(fast(logsvcConfig(humio.url, { batch: { max_events: 10 }, request: { adaptive_concurrency: { initial_concurrency: 4 } } }), { timeout_secs: 0.1 }), input, ctx);
    expect(count(ds, 'delivered')).to.equal(300);
    expect(ds.every((d) => d.status === 'delivered')).to.equal(true);
    const names = sentNames(humio);
    const unique = new Set(names);
    expect(unique.size).to.equal(300);
    expect(names.length - unique.size).to.equal(400);
    expect(new Set(humio.events.map((e) => (e.event as { name: string }).name)).size).to.equal(300);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(40);
  });
});
