import { expect } from 'chai';
import { Subject } from 'rxjs';
import { buildHttpSink } from '../../../../connectors/sinks/http/sink.js';
import type { Delivery, EventBatch } from '../../../../lib/event.js';
import { type TestServer, startTestServer } from '../../../helpers/http-test-server.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { httpConfig, makeEvents } from './harness.js';

/**
 * Runs the sink with adaptive concurrency against a real server for `ms`, feeding one-event
 * batches whenever the sink's demand is open (like the edge buffer does). Returns the limit
 * sampled every 50 ms.
 */
async function runArc(server: TestServer, ms: number): Promise<{ samples: number[]; delivered: number }> {
  const ctx = testSinkContext('http');
  const input = new Subject<EventBatch>();
  let delivered = 0;
  let fed = 0;
  const done = new Promise<void>((resolve) =>
    input.pipe(buildHttpSink(httpConfig(server.url, { batch: { max_events: 1 } }), ctx)).subscribe({
      next: (d: Delivery) => (delivered += d.status === 'delivered' ? 1 : 0),
      complete: resolve,
    }),
  );
  const samples: number[] = [];
  const t0 = Date.now();
  const sampler = setInterval(() => samples.push(ctx.metric('adaptive_concurrency_limit')), 50);
  const feed = () => {
    if (Date.now() - t0 >= ms) return input.complete();
    while (ctx.demand.isOpen) input.next(makeEvents(1, fed++));
    setImmediate(feed);
  };
  feed();
  await done;
  clearInterval(sampler);
  return { samples, delivered };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

// Loose bounds: real clocks on a shared CI machine; the exact algorithm is pinned in virtual
// time by spec/operators/concurrency.spec.ts.
describe('connectors/sinks/http: adaptive concurrency against a real server', function () {
  let server: TestServer;
  afterEach(() => server.close());

  it('settles near a knee of 8 in flight when latency rises beyond it', async () => {
    // 10 ms up to 8 concurrent requests, then 10 ms more per extra request
    server = await startTestServer((_r, _n, inFlight) => ({ status: 200, delayMs: inFlight <= 8 ? 10 : 10 + 10 * (inFlight - 8) }));
    const { samples, delivered } = await runArc(server, 2500);
    const tail = samples.slice(samples.length / 2);
    if (process.env.WEIR_ARC_TABLE) console.log(`knee 8: ${samples.join(',')}`);
    expect(delivered).to.be.greaterThan(100);
    expect(mean(tail), `limits ${tail.join(',')}`).to.be.within(2, 16);
    expect(server.maxInFlight).to.be.at.most(20);
  });

  it('keeps growing against constant latency', async () => {
    server = await startTestServer(() => ({ status: 200, delayMs: 40 }));
    const { samples } = await runArc(server, 2000);
    if (process.env.WEIR_ARC_TABLE) console.log(`constant: ${samples.join(',')}`);
    const q = Math.floor(samples.length / 4);
    const first = mean(samples.slice(0, q));
    const last = mean(samples.slice(-q));
    // real clocks jitter, so growth is slower than one permit per RTT; it must still be clear
    expect(last, `limits ${samples.join(',')}`).to.be.greaterThan(first + 1);
    expect(Math.max(...samples), `limits ${samples.join(',')}`).to.be.at.least(4);
  });
});
