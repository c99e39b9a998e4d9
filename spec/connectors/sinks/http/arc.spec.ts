import { expect } from 'chai';
import { Subject } from 'rxjs';
import { buildHttpSink } from '../../../../connectors/sinks/http/sink.js';
import type { Delivery, EventBatch } from '../../../../lib/event.js';
import { type TestServer, startTestServer } from '../../../helpers/http-test-server.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { httpConfig, makeEvents } from './harness.js';

/**
 * Runs the sink with adaptive concurrency against a real server until `total` one-event batches
 * are delivered, feeding whenever the sink's demand is open (as the edge buffer does). Returns
 * the limit sampled after every delivery. Bounded by work, not by time: a busy machine makes it
 * slower, never different.
 */
async function runArc(server: TestServer, total: number): Promise<{ samples: number[]; delivered: number }> {
  const ctx = testSinkContext('http');
  const input = new Subject<EventBatch>();
  let delivered = 0;
  let fed = 0;
  const samples: number[] = [];
  const done = new Promise<void>((resolve) =>
    input.pipe(buildHttpSink(httpConfig(server.url, { batch: { max_events: 1 } }), ctx)).subscribe({
      next: (d: Delivery) => {
        delivered += d.status === 'delivered' ? 1 : 0;
        samples.push(ctx.metric('adaptive_concurrency_limit'));
      },
      complete: resolve,
    }),
  );
  const feed = () => {
    if (fed >= total) return input.complete();
    while (ctx.demand.isOpen && fed < total) input.next(makeEvents(1, fed++));
    setImmediate(feed);
  };
  feed();
  await done;
  return { samples, delivered };
}

// Shape only: the exact algorithm is pinned in virtual time by spec/operators/concurrency.spec.ts;
// here the controller is wired to real requests, so the bounds hold however fast the machine is.
describe('connectors/sinks/http: adaptive concurrency against a real server', function () {
  let server: TestServer;
  afterEach(() => server.close());

  it('grows past one request in flight, and stays bounded near a knee of 8', async () => {
    // 10 ms up to 8 concurrent requests, then 10 ms more per extra request
    server = await startTestServer((_r, _n, inFlight) => ({ status: 200, delayMs: inFlight <= 8 ? 10 : 10 + 10 * (inFlight - 8) }));
    const { samples, delivered } = await runArc(server, 600);
    if (process.env.WEIR_ARC_TABLE) console.log(`knee 8: ${samples.join(',')}`);
    expect(delivered).to.equal(600);
    expect(Math.max(...samples), `limits ${samples.join(',')}`).to.be.at.least(2);
    expect(server.maxInFlight).to.be.at.most(20);
  });

  it('keeps growing against constant latency', async () => {
    server = await startTestServer(() => ({ status: 200, delayMs: 40 }));
    const { samples, delivered } = await runArc(server, 400);
    if (process.env.WEIR_ARC_TABLE) console.log(`constant: ${samples.join(',')}`);
    expect(delivered).to.equal(400);
    // a constant latency is no reason to stay at one request in flight
    expect(Math.max(...samples), `limits ${samples.join(',')}`).to.be.at.least(2);
  });
});
