import { expect } from 'chai';
import { of } from 'rxjs';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { type LokiPeer, startLoki } from '../../../peers/loki.js';
import { count, decodeProtobuf, fast, log, lsConfig, runSink } from './harness.js';

/** Every line of every push the store received (failed attempts included). */
const sentLines = (loki: LokiPeer) => loki.requests.flatMap((r) => decodeProtobuf(r.raw).flatMap((s) => s.entries.map((e) => e[1])));

const events = (n: number, from = 0) => Array.from({ length: n }, (_, i) => log(`m${from + i}`, from + i));

describe('connectors/sinks/labelstore: retries and faults', () => {
  let loki: LokiPeer;
  beforeEach(async () => {
    loki = await startLoki();
  });
  afterEach(() => loki.close());
  const config = (extra: Record<string, unknown> = {}, request = {}) => fast(lsConfig(loki.url, extra), request);

  for (const status of [500, 503, 429]) {
    it(`retries ${status} with the same body and delivers once the store recovers`, async () => {
      loki.failNext(status, 2);
      const ctx = testSinkContext('labelstore');
      const ds = await runSink(config(), of(events(3)), ctx);
      expect(ds.map((d) => [d.status, d.events.length])).to.deep.equal([['delivered', 3]]);
      expect(loki.requests).to.have.length(3);
      expect(new Set(loki.requests.map((r) => r.raw.toString('base64'))).size).to.equal(1);
      expect(loki.entries).to.have.length(3);
      expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(2);
    });
  }

  it('400 (a label set the store refuses): rejected at once, counted, not retried', async () => {
    const ctx = testSinkContext('labelstore');
    // 16 labels: over the store's default of 15 label names per stream
    const labels = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`l${i}`, 'x']));
    const ds = await runSink(config({ labels }), of(events(2)), ctx);
    expect(loki.requests).to.have.length(1);
    expect(ds.map((d) => [d.status, d.events.length, d.bytes])).to.deep.equal([['rejected', 2, 0]]);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed', stage: 'sending' })).to.equal(1);
    expect(loki.entries).to.deep.equal([]);
  });

  it('501 is not retried and ends errored; retry_attempts bounds the retries of a 503', async () => {
    loki.fault = () => 501;
    expect((await runSink(config(), of(events(1))))[0]!.status).to.equal('errored');
    expect(loki.requests).to.have.length(1);
    loki.fault = () => 503;
    expect((await runSink(config({}, { retry_attempts: 2 }), of(events(1))))[0]!.status).to.equal('errored');
    expect(loki.requests).to.have.length(4);
  });

  it('a connection reset is retried', async () => {
    loki.fault = (_r, n) => (n < 2 ? 'reset' : undefined);
    const ds = await runSink(config(), of(events(1)));
    expect(ds[0]!.status).to.equal('delivered');
    expect(loki.requests).to.have.length(3);
    expect(loki.entries).to.have.length(1);
  });

  it('a stall past request.timeout_secs aborts the attempt and retries it', async () => {
    loki.fault = (_r, n) => (n === 0 ? 'stall' : undefined);
    const ctx = testSinkContext('labelstore');
    const ds = await runSink(config({}, { timeout_secs: 0.1 }), of(events(2)), ctx);
    expect(ds.map((d) => d.status)).to.deep.equal(['delivered']);
    expect(loki.requests).to.have.length(2);
    expect(loki.entries).to.have.length(2);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(1);
  });

  it('500/503/429, resets and stalls in rotation, then recovery: every event delivered, none lost, duplicates counted', async () => {
    const faults = [500, 503, 429, 'reset', 'stall'] as const;
    loki.fault = (_r, n) => (n < 40 ? faults[n % faults.length]! : undefined);
    const ctx = testSinkContext('labelstore');
    const input = of(...Array.from({ length: 30 }, (_, b) => events(10, b * 10)));
    const ds = await runSink(config({ batch: { max_events: 10 } }, { timeout_secs: 0.1 }), input, ctx);
    expect(count(ds, 'delivered')).to.equal(300);
    expect(ds.every((d) => d.status === 'delivered')).to.equal(true);
    const stored = loki.entries.map((e) => e.line);
    expect(new Set(stored).size).to.equal(300); // zero lost
    expect(stored).to.have.length(300); // the store kept each once
    // every failed attempt reached the store with its 10 entries: 40 failures, 400 duplicates sent
    const sent = sentLines(loki);
    expect(sent.length - new Set(sent).size).to.equal(400);
    expect(ctx.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(40);
  });
});
