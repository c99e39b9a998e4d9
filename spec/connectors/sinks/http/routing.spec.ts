import { expect } from 'chai';
import { Subject } from 'rxjs';
import * as v from 'valibot';
import { HttpSinkConfig } from '../../../../connectors/sinks/http/config.js';
import type { EventBatch } from '../../../../lib/event.js';
import { type TestServer, ndjsonEvents, startTestServer } from '../../../helpers/http-test-server.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { until } from '../../../helpers/wait.js';
import { count, fast, makeEvents, runSink } from './harness.js';

const issues = (cfg: Record<string, unknown>) => {
  const r = v.safeParse(HttpSinkConfig, { type: 'http', inputs: ['in'], encoding: {}, ...cfg });
  return r.success ? [] : r.issues.map((i) => `${v.getDotPath(i) ?? ''}: ${i.message}`);
};

const spreadConfig = (endpoints: string[], routing: Record<string, unknown> = {}) =>
  fast(v.parse(HttpSinkConfig, { type: 'http', inputs: ['in'], routing: { endpoints, ...routing }, encoding: { codec: 'ndjson' }, batch: { max_events: 10 }, request: { concurrency: 4 } }));

/** The `i` field of every event each server received. */
const received = (servers: readonly TestServer[]) => servers.map((s) => ndjsonEvents(s.requests).map((e) => e.i as number));

describe('connectors/sinks/http: several endpoints', () => {
  it('takes uri or routing.endpoints, not both and not neither, and no credentials in the endpoints', () => {
    expect(issues({ uri: 'http://a:1' })).to.deep.equal([]);
    expect(issues({ routing: { endpoints: ['http://a:1', 'http://b:1'] } })).to.deep.equal([]);
    expect(issues({})).to.deep.equal(['uri: no endpoint configured: set uri or routing.endpoints']);
    expect(issues({ uri: 'http://a:1', routing: { endpoints: ['http://b:1'] } })).to.deep.equal(['routing: uri and routing are mutually exclusive: list several endpoints in routing.endpoints']);
    expect(issues({ routing: { endpoints: [] } })[0]).to.match(/^routing\.endpoints: must contain at least one endpoint/);
    expect(issues({ routing: { endpoints: ['http://u:p@a:1'] } })).to.deep.equal(['routing: credentials in routing.endpoints are not taken: set auth']);
    expect(issues({ routing: { endpoints: ['ftp://a'] } })[0]).to.match(/^routing\.endpoints\.0: must be an http or https URL/);
    expect(issues({ routing: { endpoints: ['http://a:1'], strategy: 'nearest' } })[0]).to.match(/^routing\.strategy: /);
  });

  it('load_balance: every endpoint takes a share of the requests', async () => {
    const servers = await Promise.all([0, 1, 2].map(() => startTestServer()));
    try {
      const input = new Subject<EventBatch>();
      const run = runSink(spreadConfig(servers.map((s) => s.url)), input);
      for (let b = 0; b < 30; b++) input.next(makeEvents(10, b * 10));
      input.complete();
      const ds = await run;
      expect(count(ds, 'delivered')).to.equal(300);
      for (const s of servers) expect(s.requests.length, s.url).to.be.greaterThan(2);
      expect(received(servers).flat().sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 300 }, (_, i) => i));
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });

  it('failover_primary: everything to the first endpoint; failover: to the second once the first is down', async () => {
    for (const strategy of ['failover_primary', 'failover']) {
      const dead = await startTestServer();
      await dead.close();
      const live = await Promise.all([0, 1].map(() => startTestServer()));
      const endpoints = strategy === 'failover_primary' ? [live[0]!.url, live[1]!.url] : [dead.url, live[0]!.url, live[1]!.url];
      try {
        const input = new Subject<EventBatch>();
        const run = runSink(spreadConfig(endpoints, { strategy }), input);
        for (let b = 0; b < 20; b++) input.next(makeEvents(5, b * 5));
        input.complete();
        expect(count(await run, 'delivered'), strategy).to.equal(100);
        expect(received(live).map((r) => r.length), strategy).to.deep.equal([100, 0]);
      } finally {
        await Promise.all(live.map((s) => s.close()));
      }
    }
  });

  it('when the endpoint in use fails, failover moves on down the list and failover_primary starts again from the first', async () => {
    for (const strategy of ['failover', 'failover_primary']) {
      const dead = await startTestServer();
      await dead.close();
      const [s1, t1] = await Promise.all([startTestServer(), startTestServer()]);
      const servers = { p: undefined as TestServer | undefined, s: s1!, t: t1! };
      const input = new Subject<EventBatch>();
      const run = runSink(spreadConfig([dead.url, s1!.url, t1!.url], { strategy }), input);
      let next = 0;
      const send = (n: number) => {
        for (let b = 0; b < n; b++, next += 5) input.next(makeEvents(5, next));
      };
      try {
        send(4);
        await until(() => received([servers.s]).flat().length === 20, 10_000, 'the first batches at the second endpoint');
        servers.p = await startTestServer(() => 200, undefined, dead.port);
        send(4);
        await until(() => received([servers.s]).flat().length === 40, 10_000, 'more batches at the second endpoint');
        expect(servers.p.requests.length, `${strategy}: the primary is not probed while the second works`).to.equal(0);
        await servers.s.close();
        send(4);
        input.complete();
        expect(count(await run, 'delivered'), strategy).to.equal(60);
        const after = strategy === 'failover' ? servers.t : servers.p;
        const idle = strategy === 'failover' ? servers.p : servers.t;
        expect(received([after]).flat().length, strategy).to.equal(20);
        expect(idle.requests.length, strategy).to.equal(0);
      } finally {
        await Promise.all([servers.p?.close(), servers.t.close(), servers.s.close()]);
      }
    }
  });

  it('one of three receivers stopped and started again during the run: nothing lost, and it takes requests again', async () => {
    const servers = await Promise.all([0, 1, 2].map(() => startTestServer()));
    const ctx = testSinkContext('http');
    const input = new Subject<EventBatch>();
    const config = spreadConfig(servers.map((s) => s.url));
    const run = runSink(config, input, ctx);
    let next = 0;
    const send = (batches: number) => {
      for (let b = 0; b < batches; b++, next += 10) input.next(makeEvents(10, next));
    };
    try {
      send(30);
      await until(() => servers[1]!.requests.length > 0, 10_000, 'a request at the second receiver');
      const stopped = servers[1]!;
      await stopped.close();
      send(30);
      await until(() => ctx.metric('active_endpoints') === 2, 20_000, 'the stopped receiver taken out');
      servers[1] = await startTestServer(() => 200, undefined, stopped.port);
      // keep sending until the restarted receiver was probed and takes a share again
      await until(() => {
        send(1);
        return servers[1]!.requests.length >= 3;
      }, 20_000, 'the restarted receiver taking requests again');
      send(10);
      input.complete();
      const ds = await run;
      expect(count(ds, 'delivered')).to.equal(next);
      expect(count(ds, 'errored') + count(ds, 'rejected')).to.equal(0);
      const all = received([...servers, stopped]).flat();
      expect(new Set(all).size).to.equal(next);
      expect(ctx.metric('active_endpoints')).to.equal(3);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });
});
