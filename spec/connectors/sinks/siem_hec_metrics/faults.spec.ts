import { expect } from 'chai';
import { of } from 'rxjs';
import { testSinkContext } from '../../../helpers/sink-context.js';
import type { Fault } from '../../../peers/http-peer.js';
import { type HecPeer, startHec } from '../../../peers/hec.js';
import { parseHecBody } from '../../../peers/hec-protocol.js';
import { count, counter } from '../../shared/hec/harness.js';
import { TOKEN, fast, runSink, siemConfig } from './harness.js';

const EVENT = '/services/collector/event';
const events = (n: number, from = 0) => Array.from({ length: n }, (_, i) => counter(`m${from + i}`, from + i));
/** Metric names of every event request the collector saw, failed attempts included. */
const sentNames = (peer: HecPeer) =>
  peer.requests
    .filter((r) => r.path === EVENT)
    .flatMap((r) => parseHecBody(r.raw.toString(), true).envelopes.map((e) => (e.fields as { metric_name: string }).metric_name));

describe('connectors/sinks/siem_hec_metrics: retries and faults', function () {
  this.timeout(30_000);
  let hec: HecPeer;
  beforeEach(async () => {
    hec = await startHec();
  });
  afterEach(() => hec.close());
  /** Fails the first `n` event requests with `fault`. */
  const failFirst = (n: number, fault: Fault) => {
    let seen = 0;
    hec.fault = (r) => (r.path === EVENT && seen++ < n ? fault : undefined);
  };

  for (const status of [500, 503, 429]) {
    it(`retries ${status} with the same body and delivers once the collector recovers`, async () => {
      failFirst(2, status);
      const ctx = testSinkContext('siem_hec_metrics');
      const ds = await runSink(fast(siemConfig(hec.url)), of(events(3)), ctx);
      expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([['delivered', 3]]);
      const posts = hec.requests.filter((r) => r.path === EVENT);
      expect(posts).to.have.length(3);
      expect(new Set(posts.map((r) => r.raw.toString())).size).to.equal(1);
      expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(2);
      expect(ctx.metric('http_request_errors_total')).to.equal(2);
      expect(hec.metrics).to.have.length(3);
    });
  }

  it('400 (a body the collector refuses): rejected at once, counted, not retried', async () => {
    failFirst(1, { status: 400, body: '{"text":"Invalid data format","code":6,"invalid-event-number":0}' });
    const ctx = testSinkContext('siem_hec_metrics');
    const ds = await runSink(fast(siemConfig(hec.url)), of(events(2)), ctx);
    expect(hec.requests.filter((r) => r.path === EVENT)).to.have.length(1);
    expect(ds.map((d) => [d.status, d.events.length, d.bytes])).to.deep.equal([['rejected', 2, 0]]);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed', stage: 'sending' })).to.equal(1);
    expect(ctx.metric('http_request_errors_total')).to.equal(1);
  });

  it('an unknown token (403) is rejected, not retried', async () => {
    const ds = await runSink(fast(siemConfig(hec.url, { default_token: 'nobody' })), of(events(1)));
    expect(ds.map((d) => d.status)).to.deep.equal(['rejected']);
    expect(hec.requests).to.have.length(1);
  });

  it('501 is not retried and ends errored; retry_attempts bounds the retries of a 503', async () => {
    failFirst(100, 501);
    expect((await runSink(fast(siemConfig(hec.url)), of(events(1))))[0]!.status).to.equal('errored');
    expect(hec.requests).to.have.length(1);
    failFirst(100, 503);
    expect((await runSink(fast(siemConfig(hec.url), { retry_attempts: 2 }), of(events(1))))[0]!.status).to.equal('errored');
    expect(hec.requests).to.have.length(4);
  });

  it('a connection reset is retried', async () => {
    failFirst(2, 'reset');
    const ds = await runSink(fast(siemConfig(hec.url)), of(events(1)));
    expect(ds[0]!.status).to.equal('delivered');
    expect(hec.requests.filter((r) => r.path === EVENT)).to.have.length(3);
  });

  it('a stall past request.timeout_secs aborts the attempt and retries it', async () => {
    failFirst(1, 'stall');
    const ctx = testSinkContext('siem_hec_metrics');
    const ds = await runSink(fast(siemConfig(hec.url), { timeout_secs: 0.1 }), of(events(2)), ctx);
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    expect(hec.requests.filter((r) => r.path === EVENT)).to.have.length(2);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(1);
  });

  it('500/503/429, resets and stalls in rotation, then recovery: every metric delivered and acknowledged, none lost, duplicates counted', async () => {
    const faults: Fault[] = [500, 503, 429, 'reset', 'stall'];
    let served = 0;
    hec.fault = (r) => (r.path === EVENT && served < 40 ? faults[served++ % faults.length] : undefined);
    const ctx = testSinkContext('siem_hec_metrics');
    const input = of(...Array.from({ length: 30 }, (_, b) => events(10, b * 10)));
    // the timeout also bounds the ack queries: an answer aborted late loses the ids the collector
    // reported (it forgets them once reported), so it must leave room for a busy machine
    const ds = await runSink(fast(siemConfig(hec.url, { batch: { max_events: 10 }, request: { concurrency: 4 } }), { timeout_secs: 1 }), input, ctx);
    expect(count(ds, 'delivered')).to.equal(300);
    expect(ds.every((d) => d.status === 'delivered')).to.equal(true);
    const names = sentNames(hec);
    const unique = new Set(names);
    expect(unique.size).to.equal(300); // zero lost
    // every failed attempt reached the collector with its 10 metrics: 40 failures
    expect(names.length - unique.size).to.equal(400);
    expect(new Set(hec.metrics.map((m) => m.name)).size).to.equal(300);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(40);
    // each delivered request was confirmed by an ack query naming its id
    expect(new Set(hec.ackQueries.flatMap((q) => q.acks)).size).to.equal(30);
    expect(hec.requests.filter((r) => r.path === EVENT).every((r) => r.headers.authorization === `Splunk ${TOKEN}`)).to.equal(true);
  });
});
