/**
 * The cloudw_queue source in a running topology with end-to-end acknowledgements (sink-level
 * `acknowledgements.enabled`): a message is deleted only once its event was
 * delivered by the sink, a rejected one comes back after its visibility timeout, and a blocked
 * sink stops the polling until it takes events again.
 */
import { expect } from 'chai';
import { Observable, type Subscriber } from 'rxjs';
import * as v from 'valibot';
import { type ComponentDef, type ComponentKind, defineSink } from '../../../../lib/component.js';
import { type Catalog, configFromObject } from '../../../../lib/config/load.js';
import { sinkObject } from '../../../../lib/config/options/envelope.js';
import type { Delivery, EventBatch, LogEvent } from '../../../../lib/event.js';
import { LogRoot } from '../../../../lib/log.js';
import { Topology } from '../../../../lib/topology/topology.js';
import { testCatalog } from '../../../helpers/test-components.js';
import { until } from '../../../helpers/wait.js';
import { type Fauxqs, SQS_SIGV4, TEST_KEYS, startFauxqs } from '../../../peers/fauxqs.js';
import { type SqsProxy, startSqsProxy } from '../../../peers/sqs-proxy.js';

const quiet = () => new LogRoot('error', { write() {} });

/** Messages of every event a `test_verdict` sink saw, by sink id, and what it answered. */
const seen = new Map<string, string[]>();
const verdictSink = defineSink({
  type: 'test_verdict',
  summary: 'test: answers every batch with one status',
  schema: sinkObject('test_verdict', { status: v.picklist(['delivered', 'rejected']) }),
  input: 'any',
  build: (c, ctx) => (source) =>
    new Observable<Delivery>((out) =>
      source.subscribe({
        next: (batch) => {
          const list = seen.get(ctx.id) ?? [];
          list.push(...batch.map((e) => (e as LogEvent).fields.message as string));
          seen.set(ctx.id, list);
          out.next({ status: c.status, events: batch, bytes: 0 });
        },
        complete: () => out.complete(),
      }),
    ),
});

/** A sink that holds what it gets (and asks for nothing more) while closed; `valve.open()` delivers and resumes. */
const valve = { isOpen: true, held: [] as EventBatch[], out: undefined as Subscriber<Delivery> | undefined, reopen: undefined as (() => void) | undefined };
const valveSink = defineSink({
  type: 'test_valve',
  summary: 'test: a sink the test blocks and unblocks',
  schema: sinkObject('test_valve', {}),
  input: 'any',
  build: (_c, ctx) => (source) =>
    new Observable<Delivery>((out) => {
      valve.out = out;
      valve.reopen = () => {
        valve.isOpen = true;
        for (const b of valve.held.splice(0)) out.next({ status: 'delivered', events: b, bytes: 0 });
        ctx.demand.open();
      };
      return source.subscribe((batch) => {
        const list = seen.get(ctx.id) ?? [];
        list.push(...batch.map((e) => (e as LogEvent).fields.message as string));
        seen.set(ctx.id, list);
        if (valve.isOpen) return out.next({ status: 'delivered', events: batch, bytes: 0 });
        valve.held.push(batch);
        ctx.demand.close();
      });
    }),
});

const extra = [verdictSink, valveSink] as unknown as ComponentDef[];
const catalog: Catalog = {
  find: (kind: ComponentKind, type: string) => extra.find((c) => c.kind === kind && c.type === type) ?? testCatalog.find(kind, type),
  types: (kind: ComponentKind) => [...testCatalog.types(kind), ...extra.filter((c) => c.kind === kind).map((c) => c.type)],
};

describe('connectors/sources/cloudw_queue: end-to-end acknowledgements in a topology', function () {
  this.timeout(60_000);
  let sqs: Fauxqs;
  let proxy: SqsProxy;
  let topo: Topology | undefined;
  let q = 0;
  const receives = () => proxy.calls.filter((c) => c.operation === 'ReceiveMessage').length;

  before(async () => {
    sqs = await startFauxqs();
    proxy = await startSqsProxy(sqs.endpoint, { sigv4: SQS_SIGV4 });
  });
  after(async () => {
    await proxy.close();
    await sqs.close();
  });
  beforeEach(() => {
    proxy.reset();
    seen.clear();
  });
  afterEach(async () => {
    await topo?.stop(1_000);
    topo = undefined;
  });

  async function run(queueUrl: string, sink: Record<string, unknown>, source: Record<string, unknown> = {}): Promise<Topology> {
    topo = new Topology({ log: quiet() });
    await topo.start(
      configFromObject(
        {
          sources: { in: { type: 'cloudw_queue', queue_url: queueUrl, endpoint: proxy.url, region: 'us-east-1', auth: { ...TEST_KEYS }, poll_secs: 1, client_concurrency: 2, ...source } },
          sinks: { out: { inputs: ['in'], healthcheck: { enabled: false }, acknowledgements: { enabled: true }, ...sink } },
        },
        catalog,
      ),
    );
    return topo;
  }

  it('N messages in, N events out exactly once, none left on the queue', async () => {
    const url = await sqs.createQueue(`e2e${q++}`);
    const bodies = Array.from({ length: 120 }, (_, i) => `e2e-${String(i).padStart(3, '0')}`);
    await sqs.send(url, bodies);
    const t = await run(url, { type: 'test_verdict', status: 'delivered' });
    await until(() => (seen.get('out') ?? []).length >= 120, 20_000, '120 events');
    await until(() => proxy.calls.filter((c) => c.operation === 'DeleteMessageBatch').reduce((n, c) => n + (c.body.Entries as unknown[]).length, 0) === 120, 20_000, '120 deletes');
    expect(await sqs.depth(url)).to.deep.equal({ visible: 0, inFlight: 0 });
    expect([...seen.get('out')!].sort()).to.deep.equal(bodies);
    expect(t.registry.sum('component_sent_events_total', { component_id: 'out' })).to.equal(120);
  });

  it('a sink that rejects: nothing is deleted, and the messages come back after their visibility timeout', async () => {
    const url = await sqs.createQueue(`e2e${q++}`);
    await sqs.send(url, ['r1', 'r2', 'r3']);
    await run(url, { type: 'test_verdict', status: 'rejected' }, { visibility_timeout_secs: 1 });
    await until(() => (seen.get('out') ?? []).length >= 6, 20_000, 'each message twice');
    expect(proxy.calls.filter((c) => c.operation === 'DeleteMessageBatch')).to.have.length(0);
    const counts = new Map<string, number>();
    for (const m of seen.get('out')!) counts.set(m, (counts.get(m) ?? 0) + 1);
    expect([...counts.keys()].sort()).to.deep.equal(['r1', 'r2', 'r3']);
    for (const n of counts.values()) expect(n).to.be.at.least(2);
    await topo!.stop(1_000);
    topo = undefined;
    const depth = await sqs.depth(url);
    expect(depth.visible + depth.inFlight).to.equal(3);
  });

  it('a blocked sink: the buffer fills, polling stops; unblocked, polling resumes and every message is delivered and deleted', async () => {
    const url = await sqs.createQueue(`e2e${q++}`);
    const bodies = Array.from({ length: 200 }, (_, i) => `b-${String(i).padStart(3, '0')}`);
    await sqs.send(url, bodies);
    valve.isOpen = false;
    valve.held = [];
    const t = await run(url, { type: 'test_valve', buffer: { max_events: 20, when_full: 'block' } });
    await until(() => t.sourceGate('in')!.isOpen === false, 20_000, 'the source gate to close');
    // the polls under way when the gate closed finish; then no new one starts
    let last = -1;
    while (last !== receives()) {
      last = receives();
      await sqs.depth(url);
      await sqs.depth(url);
    }
    const stopped = receives();
    expect(await sqs.depth(url)).to.have.property('visible').greaterThan(100);
    expect(receives()).to.equal(stopped);
    expect(proxy.calls.filter((c) => c.operation === 'DeleteMessageBatch')).to.have.length(0);
    valve.reopen!();
    await until(() => (seen.get('out') ?? []).length >= 200, 30_000, 'all 200 events');
    await until(() => proxy.calls.filter((c) => c.operation === 'DeleteMessageBatch').reduce((n, c) => n + (c.body.Entries as unknown[]).length, 0) === 200, 20_000, '200 deletes');
    expect(receives()).to.be.greaterThan(stopped);
    expect([...seen.get('out')!].sort()).to.deep.equal(bodies);
    expect(await sqs.depth(url)).to.deep.equal({ visible: 0, inFlight: 0 });
  });
});
