import { expect } from 'chai';
import { Subject, lastValueFrom, toArray } from 'rxjs';
import * as v from 'valibot';
import { mapIssue } from '../../../../lib/config/issues.js';
import { type Delivery, type EventBatch, EventMetadata, LogEvent } from '../../../../lib/event.js';
import { SocketSinkConfig, buildSocketSink, socketHealthcheck } from '../../../../connectors/sinks/socket/index.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { until } from '../../../helpers/wait.js';
import { type Receiver, receiver } from './receiver.js';

const parse = (x: Record<string, unknown>) => v.parse(SocketSinkConfig, { type: 'socket', inputs: ['in'], mode: 'tcp', encoding: { codec: 'text' }, ...x });
const problems = (x: Record<string, unknown>) => {
  const r = v.safeParse(SocketSinkConfig, { type: 'socket', inputs: ['in'], encoding: { codec: 'text' }, ...x });
  return r.success ? [] : r.issues.flatMap((i) => mapIssue(SocketSinkConfig, i)).map((m) => `${m.path}: ${m.message}`);
};
const batch = (from: number, n: number): EventBatch => Array.from({ length: n }, (_, i) => new LogEvent({ message: `m${from + i}` }, new EventMetadata('in', 'test')));
const lines = (rs: readonly Receiver[]) => rs.flatMap((r) => r.data().split('\n').filter((l) => l !== ''));
const delivered = (ds: readonly Delivery[]) => ds.filter((d) => d.status === 'delivered').reduce((n, d) => n + d.events.length, 0);

describe('connectors/sinks/socket: several endpoints', () => {
  it('takes routing.endpoints instead of address, in tcp mode only, each a host:port', () => {
    expect(problems({ mode: 'tcp', routing: { endpoints: ['127.0.0.1:1', 'localhost:2'] } })).to.deep.equal([]);
    expect(problems({ mode: 'tcp' })).to.deep.equal(['address: address is required when mode is "tcp" (or routing.endpoints)']);
    expect(problems({ mode: 'tcp', address: '127.0.0.1:1', routing: { endpoints: ['127.0.0.1:2'] } })).to.deep.equal(['routing: address and routing are mutually exclusive: list several endpoints in routing.endpoints']);
    expect(problems({ mode: 'udp', routing: { endpoints: ['127.0.0.1:2'] } })).to.deep.equal(['routing: routing applies only to mode "tcp" (mode is "udp")']);
    expect(problems({ mode: 'unix', path: '/tmp/s', routing: { endpoints: ['127.0.0.1:2'] } })).to.deep.equal(['routing: routing applies only to mode "tcp" (mode is "unix")']);
    expect(problems({ mode: 'tcp', routing: { endpoints: ['127.0.0.1:2', 'nope'] } })[0]).to.match(/^routing\.endpoints\[1\]: /);
  });

  it('load_balance: batches take turns over the receivers; failover and failover_primary: all to one', async () => {
    for (const strategy of ['load_balance', 'failover', 'failover_primary'] as const) {
      const rs = await Promise.all([0, 1, 2].map(() => receiver()));
      try {
        const input = new Subject<EventBatch>();
        const ctx = testSinkContext('socket');
        const run = lastValueFrom(input.pipe(buildSocketSink(parse({ routing: { endpoints: rs.map((r) => `127.0.0.1:${r.port}`), strategy } }), ctx), toArray()));
        for (let b = 0; b < 9; b++) input.next(batch(b * 10, 10));
        input.complete();
        expect(delivered(await run)).to.equal(90);
        await until(() => lines(rs).length === 90, 5000, 'every line');
        const shares = rs.map((r) => r.data().split('\n').filter((l) => l !== '').length);
        expect(shares, strategy).to.deep.equal(strategy === 'load_balance' ? [30, 30, 30] : [90, 0, 0]);
      } finally {
        await Promise.all(rs.map((r) => r.close()));
      }
    }
  });

  it('a receiver that is down is routed around, and one stopped and started again gets batches again: nothing lost', async () => {
    const rs = await Promise.all([0, 1, 2].map(() => receiver()));
    const ports = rs.map((r) => r.port);
    const ctx = testSinkContext('socket');
    const input = new Subject<EventBatch>();
    const config = parse({ routing: { endpoints: ports.map((p) => `127.0.0.1:${p}`), health: { retry_initial_backoff_secs: 1 } } });
    const run = lastValueFrom(input.pipe(buildSocketSink(config, ctx), toArray()));
    const old: Receiver[] = [];
    let next = 0;
    const send = (n: number) => {
      for (let b = 0; b < n; b++, next += 10) input.next(batch(next, 10));
    };
    try {
      send(6);
      await until(() => lines(rs).length === 60, 5000, 'the first lines');
      old.push(rs[1]!);
      await rs[1]!.close();
      await until(() => {
        send(1);
        return ctx.metric('active_endpoints') === 2;
      }, 20_000, 'the stopped receiver taken out');
      rs[1] = await receiver(ports[1]);
      await until(() => {
        send(1);
        return rs[1]!.data().length > 0;
      }, 20_000, 'the restarted receiver getting batches again');
      send(3);
      input.complete();
      const ds = await run;
      expect(delivered(ds)).to.equal(next);
      await until(() => new Set(lines([...rs, ...old])).size === next, 5000, 'every line');
      expect(ctx.metric('active_endpoints')).to.equal(3);
    } finally {
      await Promise.all(rs.map((r) => r.close()));
    }
  });

  it('the health check asks every endpoint when load balancing, the first with a failover strategy', async () => {
    const r = await receiver();
    const dead = await receiver();
    await dead.close();
    try {
      const endpoints = [`127.0.0.1:${r.port}`, `127.0.0.1:${dead.port}`];
      const err = await socketHealthcheck(parse({ routing: { endpoints } })).catch((e: Error) => e);
      expect(String(err)).to.match(new RegExp(`endpoint 127.0.0.1:${dead.port}: .*ECONNREFUSED`));
      await socketHealthcheck(parse({ routing: { endpoints, strategy: 'failover' } }));
      const first = await socketHealthcheck(parse({ routing: { endpoints: [...endpoints].reverse(), strategy: 'failover_primary' } })).catch((e: Error) => e);
      expect(String(first)).to.match(/ECONNREFUSED/);
    } finally {
      await r.close();
    }
  });
});
