import { expect } from 'chai';
import { of } from 'rxjs';
import { type TestServer, startTestServer } from '../../../helpers/http-test-server.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { parseLineProtocol } from '../../../peers/line-protocol.js';
import { count, counter, fast, runSink, tsdbConfig } from './harness.js';

/** Every point of every request the server saw (failed attempts included), checked as the server would. */
function points(server: TestServer) {
  return server.requests.flatMap((r) => {
    const { points, errors } = parseLineProtocol(r.body, { unsigned: true });
    expect(errors).to.deep.equal([]);
    return points;
  });
}

const events = (n: number, from = 0) => Array.from({ length: n }, (_, i) => counter(`m${from + i}`, from + i));

describe('connectors/sinks/tsdb_metrics: retries and faults', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer(() => 204);
  });
  afterEach(() => server.close());
  const config = (extra: Record<string, unknown> = {}, request = {}) => fast(tsdbConfig(server.url, { org: 'o', bucket: 'b', token: 't', ...extra }), request);

  for (const status of [500, 503, 429]) {
    it(`retries ${status} with the same body and delivers once the server recovers`, async () => {
      server.reply = (_r, n) => (n < 2 ? status : 204);
      const ctx = testSinkContext('tsdb_metrics');
      const ds = await runSink(config(), of(events(3)), ctx);
      expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([['delivered', 3]]);
      expect(server.requests).to.have.length(3);
      expect(new Set(server.requests.map((r) => r.body)).size).to.equal(1);
      expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(2);
    });
  }

  it('400 (a line the server refuses): rejected at once, counted, not retried', async () => {
    server.reply = () => ({ status: 400, body: '{"error":"unable to parse"}' });
    const ctx = testSinkContext('tsdb_metrics');
    const ds = await runSink(config(), of(events(2)), ctx);
    expect(server.requests).to.have.length(1);
    expect(ds.map((d) => [d.status, d.events.length, d.bytes])).to.deep.equal([['rejected', 2, 0]]);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed', stage: 'sending' })).to.equal(1);
  });

  it('501 is not retried and ends errored; retry_attempts bounds the retries of a 503', async () => {
    server.reply = () => 501;
    expect((await runSink(config(), of(events(1))))[0]!.status).to.equal('errored');
    expect(server.requests).to.have.length(1);
    server.reply = () => 503;
    expect((await runSink(config({}, { retry_attempts: 2 }), of(events(1))))[0]!.status).to.equal('errored');
    expect(server.requests).to.have.length(4);
  });

  it('a connection reset is retried', async () => {
    server.reply = (_r, n) => (n < 2 ? 'reset' : 204);
    const ds = await runSink(config(), of(events(1)));
    expect(ds[0]!.status).to.equal('delivered');
    expect(server.requests).to.have.length(3);
  });

  it('a stall past request.timeout_secs aborts the attempt and retries it', async () => {
    server.reply = (_r, n) => (n === 0 ? 'stall' : 204);
    const ctx = testSinkContext('tsdb_metrics');
    const ds = await runSink(config({}, { timeout_secs: 0.5 }), of(events(2)), ctx);
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    expect(server.requests).to.have.length(2);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(1);
  });

  it('500/503/429, resets and stalls in rotation, then recovery: every metric delivered, none lost, duplicates counted', async () => {
    const faults = [500, 503, 429, 'reset', 'stall'] as const;
    let served = 0;
    server.reply = () => {
      const n = served++;
      return n < 40 ? faults[n % faults.length]! : { status: 204, delayMs: 2 };
    };
    const ctx = testSinkContext('tsdb_metrics');
    const input = of(...Array.from({ length: 30 }, (_, b) => events(10, b * 10)));
    const ds = await runSink(config({ batch: { max_events: 10 }, request: { concurrency: 4 } }, { timeout_secs: 0.1 }), input, ctx);
    expect(count(ds, 'delivered')).to.equal(300);
    expect(ds.every((d) => d.status === 'delivered')).to.equal(true);
    const received = points(server).map((p) => p.measurement);
    const unique = new Set(received);
    expect(unique.size).to.equal(300); // zero lost
    // every scripted fault reached the server with its 10 lines (40 failures); on a busy machine a
    // slow success may also time out and be resent, and each such attempt is counted
    const duplicates = received.length - unique.size;
    const failedAttempts = ctx.metric('component_errors_total', { error_type: 'request_failed' });
    expect(failedAttempts).to.be.at.least(40);
    expect(duplicates).to.be.at.least(400);
    expect(duplicates).to.be.at.most(failedAttempts * 10);
  });
});
