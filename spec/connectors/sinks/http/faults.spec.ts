import { expect } from 'chai';
import { of } from 'rxjs';
import { type TestServer, ndjsonEvents, startTestServer } from '../../../helpers/http-test-server.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { count, fast, httpConfig, makeEvents, runSink } from './harness.js';

describe('connectors/sinks/http: retries and faults', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer();
  });
  afterEach(() => server.close());

  for (const status of [500, 503, 429]) {
    it(`retries ${status} and delivers once the server recovers`, async () => {
      server.reply = (_r, n) => (n < 2 ? status : 200);
      const ctx = testSinkContext('http');
      const ds = await runSink(fast(httpConfig(server.url)), of(makeEvents(3)), ctx);
      expect(server.requests).to.have.length(3);
      expect(new Set(server.requests.map((r) => r.body)).size).to.equal(1); // re-sent unchanged
      expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
      expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(2);
    });
  }

  it('400: rejected, not retried, counted in http_bad_requests_total', async () => {
    server.reply = () => ({ status: 400, body: 'bad' });
    const ctx = testSinkContext('http');
    const ds = await runSink(fast(httpConfig(server.url)), of(makeEvents(2)), ctx);
    expect(server.requests).to.have.length(1);
    expect(ds.map((d) => [d.status, d.events.length, d.bytes])).to.deep.equal([['rejected', 2, 0]]);
    expect(ctx.metric('http_bad_requests_total')).to.equal(1);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed', stage: 'sending' })).to.equal(1);
  });

  for (const [status, final] of [
    [501, 'errored'],
    [404, 'rejected'],
    [408, 'rejected'],
    [302, 'rejected'],
  ] as const) {
    it(`${status}: not retried, ${final}`, async () => {
      server.reply = () => status;
      const ctx = testSinkContext('http');
      const ds = await runSink(fast(httpConfig(server.url)), of(makeEvents(1)), ctx);
      expect(server.requests).to.have.length(1);
      expect(ds[0]!.status).to.equal(final);
      expect(ctx.metric('http_bad_requests_total')).to.equal(0);
    });
  }

  it('retry_attempts bounds the retries; exhausted 503 is errored', async () => {
    server.reply = () => 503;
    const ds = await runSink(fast(httpConfig(server.url), { retry_attempts: 2 }), of(makeEvents(1)));
    expect(server.requests).to.have.length(3);
    expect(ds[0]!.status).to.equal('errored');
    await runSink(fast(httpConfig(server.url), { retry_attempts: 0 }), of(makeEvents(1)));
    expect(server.requests).to.have.length(4);
  });

  it('waits along the Fibonacci sequence in real time (initial 40 ms, cap 120 ms)', async () => {
    const times: number[] = [];
    server.reply = (_r, n) => (times.push(performance.now()), n < 5 ? 503 : 200);
    await runSink(fast(httpConfig(server.url), { retry_initial_backoff_secs: 0.04, retry_max_duration_secs: 0.12 }), of(makeEvents(1)));
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    const expected = [40, 40, 80, 120, 120];
    // a real clock only gives lower bounds (a busy machine adds delay); the exact sequence is
    // pinned in virtual time by spec/operators/retry-fibonacci.spec.ts
    expect(gaps).to.have.length(expected.length);
    gaps.forEach((g, i) => expect(g, `gap ${i}`).to.be.at.least(expected[i]! - 2));
  });

  it('retries connection resets and refused connections', async () => {
    server.reply = (_r, n) => (n < 2 ? 'reset' : 200);
    const ds = await runSink(fast(httpConfig(server.url)), of(makeEvents(1)));
    expect(ds[0]!.status).to.equal('delivered');
    expect(server.requests).to.have.length(3);
    const closed = await startTestServer();
    const url = closed.url;
    await closed.close();
    const ctx = testSinkContext('http');
    const failed = await runSink(fast(httpConfig(url), { retry_attempts: 1 }), of(makeEvents(1)), ctx);
    expect(failed[0]!.status).to.equal('errored');
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(2);
  });

  it('fault injection: 500/503/429, resets and stalls, then recovery: every event delivered, none lost', async () => {
    const faults = [500, 503, 429, 'reset', 'stall'] as const;
    let served = 0;
    // the first 40 requests fail in rotation, later ones succeed
    server.reply = () => {
      const n = served++;
      return n < 40 ? faults[n % faults.length]! : { status: 200, delayMs: 2 };
    };
    const ctx = testSinkContext('http');
    const input = of(...Array.from({ length: 30 }, (_, b) => makeEvents(10, b * 10)));
    const config = fast(httpConfig(server.url, { encoding: { codec: 'ndjson' }, batch: { max_events: 10 }, request: { concurrency: 4 } }), {
      timeout_secs: 0.1,
    });
    const ds = await runSink(config, input, ctx);
    expect(count(ds, 'delivered')).to.equal(300);
    expect(ds.every((d) => d.status === 'delivered')).to.equal(true);
    const received = ndjsonEvents(server.requests).map((e) => e.i as number);
    const unique = new Set(received);
    expect(unique.size).to.equal(300); // zero lost
    const duplicates = received.length - unique.size;
    // every scripted fault reached the server (8 rounds of 5 faults, 10 events each); on a busy
    // machine a slow success may also time out and be resent, and each such attempt is counted
    const failedAttempts = ctx.metric('component_errors_total', { error_type: 'request_failed' });
    expect(failedAttempts).to.be.at.least(40);
    expect(duplicates).to.be.at.least(400);
    expect(duplicates).to.be.at.most(failedAttempts * 10);
  });
});
