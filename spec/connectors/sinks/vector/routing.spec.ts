import { expect } from 'chai';
import { Subject, lastValueFrom, toArray } from 'rxjs';
import * as v from 'valibot';
import { VectorSinkConfig, buildVectorSink, vectorHealthcheck } from '../../../../connectors/sinks/vector/index.js';
import { type Delivery, type EventBatch, logEvent } from '../../../../lib/event.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { until } from '../../../helpers/wait.js';
import { vectorReference } from '../../shared/vector/vector-proto-text.js';
import { type GrpcTestServer, grpcTestServer } from './grpc-server.js';

const ref = vectorReference();
const problems = (o: Record<string, unknown>) => {
  const r = v.safeParse(VectorSinkConfig, { type: 'vector', inputs: ['in'], ...o });
  return r.success ? [] : r.issues.map((i) => `${v.getDotPath(i) ?? ''}: ${i.message}`);
};
function config(endpoints: string[], routing: Record<string, unknown> = {}): VectorSinkConfig {
  const c = v.parse(VectorSinkConfig, { type: 'vector', inputs: ['in'], routing: { endpoints, ...routing }, batch: { max_events: 10 }, request: { concurrency: 4 } });
  c.request = { ...c.request, retry_initial_backoff_secs: 0.01, retry_max_duration_secs: 0.05, timeout_secs: 5 };
  return c;
}
const events = (from: number, n: number) => Array.from({ length: n }, (_, i) => logEvent({ message: `m${from + i}` }));
const delivered = (ds: readonly Delivery[]) => ds.filter((d) => d.status === 'delivered').reduce((n, d) => n + d.events.length, 0);
/** The messages each server received. */
const received = (servers: readonly GrpcTestServer[]) =>
  servers.flatMap((s) =>
    s.calls
      .filter((c) => c.path === '/vector.Vector/PushEvents')
      .flatMap((c) => ref.decodePush(c.message).events.map((e) => Buffer.from((e.log as { fields: Record<string, { raw_bytes: string }> }).fields.message!.raw_bytes, 'base64').toString())),
  );

describe('vector sink: routing over several endpoints', function () {
  this.timeout(60_000);

  it("takes Vector's routing.endpoints and strategy, exclusive with address", () => {
    expect(problems({ routing: { endpoints: ['127.0.0.1:1', 'https://b:2'], strategy: 'failover_primary' } })).to.deep.equal([]);
    expect(problems({})).to.deep.equal(['address: no endpoint configured: set address or routing.endpoints']);
    expect(problems({ address: '127.0.0.1:1', routing: { endpoints: ['127.0.0.1:2'] } })).to.deep.equal(['routing: address and routing are mutually exclusive: list several endpoints in routing.endpoints']);
    expect(problems({ routing: { endpoints: ['127.0.0.1:2', 'example.com'] } })).to.deep.equal(['routing.endpoints.1: must include a port']);
  });

  it('load_balance: every endpoint takes a share; one stopped and started again: nothing lost, and it takes requests again', async () => {
    const servers = await Promise.all([0, 1, 2].map(() => grpcTestServer()));
    const stopped: GrpcTestServer[] = [];
    const ctx = testSinkContext('vector');
    const input = new Subject<EventBatch>();
    const run = lastValueFrom(input.pipe(buildVectorSink(config(servers.map((s) => `127.0.0.1:${s.port}`)), ctx), toArray()));
    let next = 0;
    const send = (n: number) => {
      for (let b = 0; b < n; b++, next += 10) input.next(events(next, 10));
    };
    try {
      send(30);
      await until(() => received(servers).length === 300, 10_000, 'the first events');
      for (const s of servers) expect(received([s]).length).to.be.greaterThan(0);
      stopped.push(servers[1]!);
      await servers[1]!.close();
      await until(() => {
        send(1);
        return ctx.metric('active_endpoints') === 2;
      }, 20_000, 'the stopped endpoint taken out');
      servers[1] = await grpcTestServer(undefined, stopped[0]!.port);
      await until(() => {
        send(1);
        return received([servers[1]!]).length >= 30;
      }, 20_000, 'the restarted endpoint taking requests again');
      input.complete();
      const ds = await run;
      expect(delivered(ds)).to.equal(next);
      expect(new Set(received([...servers, ...stopped])).size).to.equal(next);
      expect(ctx.metric('active_endpoints')).to.equal(3);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });

  it('failover: everything to one endpoint, the next one when it fails', async () => {
    const servers = await Promise.all([0, 1].map(() => grpcTestServer()));
    try {
      const input = new Subject<EventBatch>();
      const run = lastValueFrom(input.pipe(buildVectorSink(config(servers.map((s) => `127.0.0.1:${s.port}`), { strategy: 'failover' }), testSinkContext('vector')), toArray()));
      for (let b = 0; b < 5; b++) input.next(events(b * 10, 10));
      await until(() => received(servers).length === 50, 10_000, 'the first events');
      expect(received([servers[1]!])).to.deep.equal([]);
      servers[0]!.answer = () => 14; // UNAVAILABLE
      for (let b = 5; b < 10; b++) input.next(events(b * 10, 10));
      input.complete();
      expect(delivered(await run)).to.equal(100);
      expect(received([servers[1]!]).length).to.equal(50);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });

  it('the health check asks every endpoint when load balancing, the first with a failover strategy', async () => {
    const up = await grpcTestServer();
    const down = await grpcTestServer();
    await down.close();
    try {
      const endpoints = [`127.0.0.1:${up.port}`, `127.0.0.1:${down.port}`];
      const ctx = testSinkContext('vector');
      const c = (strategy: string) => ({ ...config(endpoints, { strategy }), request: { ...config(endpoints).request, timeout_secs: 2 } });
      expect(await vectorHealthcheck(c('load_balance'), ctx).then(() => 'ok', (e: Error) => e.message)).to.not.equal('ok');
      expect(await vectorHealthcheck(c('failover'), ctx).then(() => 'ok', (e: Error) => e.message)).to.equal('ok');
    } finally {
      await up.close();
    }
  });
});
