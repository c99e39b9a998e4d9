/**
 * Subscriptions over a real WebSocket with Vector's own documents, in both protocols: the legacy
 * `graphql-ws` with no subprotocol header (Vector's `top` and `tap`) and `graphql-transport-ws`.
 */
import { expect } from 'chai';
import { asyncScheduler } from 'rxjs';
import { ApiServer } from '../../../lib/api/server.js';
import { configFromObject } from '../../../lib/config/load.js';
import { EventMetadata, LogEvent } from '../../../lib/event.js';
import { LogRoot } from '../../../lib/log.js';
import { Topology } from '../../../lib/topology/topology.js';
import { GraphQLSocket, type WsProtocol } from '../../helpers/graphql-ws.js';
import { collected, feeds, testCatalog } from '../../helpers/test-components.js';
import { until } from '../../helpers/wait.js';
import { vectorDoc } from '../../helpers/vector-graphql.js';

const doc = vectorDoc;
const quiet = () => new LogRoot('error', { write() {} });
const count = (id: string) => (collected.get(id) ?? []).reduce((n, b) => n + b.length, 0);
const events = (n: number, prefix = 'm') => Array.from({ length: n }, (_, i) => new LogEvent({ message: `${prefix}${i}` }, new EventMetadata('in', 'test_feed')));

const CONFIG = {
  sources: { in: { type: 'test_feed' } },
  transforms: { t: { type: 'remap', inputs: ['in'], source: '.tagged = true' } },
  sinks: { out: { type: 'test_collect', inputs: ['t'] } },
};

type Row = { componentId: string } & Record<string, any>;

describe('management API subscriptions', function () {
  this.timeout(60_000);
  let topo: Topology;
  let api: ApiServer;
  let wsUrl: string;
  let sockets: GraphQLSocket[] = [];
  const open = async (p: WsProtocol) => {
    const s = await GraphQLSocket.open(wsUrl, p);
    sockets.push(s);
    return s;
  };

  before(async () => {
    collected.clear();
    feeds.clear();
    topo = new Topology({ log: quiet() });
    api = await ApiServer.start({ address: '127.0.0.1:0', playground: true, graphql: true }, { topology: topo, scheduler: asyncScheduler, startedAt: Date.now() - 5000, version: 'x', hostname: 'h' });
    wsUrl = `ws://127.0.0.1:${api.port}/graphql`;
    await topo.start(configFromObject(CONFIG, testCatalog));
    api.markRunning();
    feeds.get('in')!.next(events(5));
    await until(() => count('out') === 5, 20_000, 'five events at out');
  });
  afterEach(() => {
    for (const s of sockets) s.ws.terminate();
    sockets = [];
  });
  after(async () => {
    await api.close();
    await topo.stop(1000);
  });

  for (const protocol of ['legacy', 'graphql-transport-ws'] as const) {
    describe(`over ${protocol}`, () => {
      it('componentReceivedEventsTotals: exact totals on the first tick', async () => {
        const s = await open(protocol);
        s.subscribe('1', doc('subscriptions/component_received_events_totals.graphql'), { interval: 50 });
        const [first] = await s.waitForData('1', () => true);
        const rows = (first!.componentReceivedEventsTotals as Row[]).sort((a, b) => a.componentId.localeCompare(b.componentId));
        expect(rows.filter((r) => r.componentId !== 'in')).to.deep.equal([
          { componentId: 'out', metric: { receivedEventsTotal: count('out') } },
          { componentId: 't', metric: { receivedEventsTotal: count('out') } },
        ]);
        s.stop('1');
      });

      it('componentReceivedEventsThroughputs: the deltas add up to the events sent after the baseline', async () => {
        const s = await open(protocol);
        s.subscribe('2', doc('subscriptions/component_received_events_throughputs.graphql'), { interval: 20 });
        await s.waitForData('2', () => true); // the second tick: the baseline is taken
        const before = count('out');
        feeds.get('in')!.next(events(3));
        const sum = () =>
          s
            .data('2')
            .flatMap((d) => d.componentReceivedEventsThroughputs as Row[])
            .filter((r) => r.componentId === 't')
            .reduce((n, r) => n + (r.throughput as number), 0);
        await s.waitFor(() => sum() === 3);
        await until(() => count('out') === before + 3);
        s.stop('2');
      });

      it('componentSentEventsThroughputs and totals carry per-output rows', async () => {
        const s = await open(protocol);
        s.subscribe('3', doc('subscriptions/component_sent_events_totals.graphql'), { interval: 20 });
        s.subscribe('4', doc('subscriptions/component_sent_events_throughputs.graphql'), { interval: 20 });
        const [totals] = await s.waitForData('3', () => true);
        const t = (totals!.componentSentEventsTotals as Row[]).find((r) => r.componentId === 't')!;
        expect(t).to.deep.equal({ componentId: 't', metric: { sentEventsTotal: count('out') }, outputs: [{ outputId: '_default', sentEventsTotal: { sentEventsTotal: count('out') } }] });
        const [tp] = await s.waitForData('4', () => true);
        const row = (tp!.componentSentEventsThroughputs as Row[]).find((r) => r.componentId === 't')!;
        expect(row).to.deep.equal({ componentId: 't', outputs: [{ outputId: '_default', throughput: 0 }], throughput: 0 });
      });

      it('heartbeat, uptime and errors totals', async () => {
        const s = await open(protocol);
        s.subscribe('5', doc('subscriptions/heartbeat.graphql'), { interval: 20 });
        s.subscribe('6', doc('subscriptions/uptime.graphql'));
        s.subscribe('7', doc('subscriptions/component_errors_totals.graphql'), { interval: 20 });
        const beats = await s.waitForData('5', () => true, 2);
        const utc = beats.map((b) => Date.parse((b.heartbeat as { utc: string }).utc));
        expect(utc[1]! - utc[0]!).to.be.at.least(0);
        const [up] = await s.waitForData('6', () => true);
        expect((up!.uptime as { seconds: number }).seconds).to.be.at.least(5);
        const [errs] = await s.waitForData('7', () => true);
        // only components with errors, each with a count above 0
        for (const r of errs!.componentErrorsTotals as Row[]) expect(r.metric.errorsTotal).to.be.above(0);
      });

      it('validates subscription documents as queries are validated', async () => {
        const s = await open(protocol);
        s.subscribe('v', 'subscription { heartbeat(interval: 100) { nope } }');
        const m = await s.waitFor((x) => x.id === 'v' && x.type === 'error');
        expect(JSON.stringify(m.payload)).to.include('Cannot query field \\"nope\\" on type \\"Heartbeat\\".');
      });

      it('rejects an interval out of 10..60000 with an error message', async () => {
        const s = await open(protocol);
        s.subscribe('8', doc('subscriptions/heartbeat.graphql'), { interval: 5 });
        const m = await s.waitFor((x) => x.id === '8' && x.type === 'error');
        expect(JSON.stringify(m.payload)).to.include('interval must be between 10 and 60000 milliseconds, got 5');
      });

      it('tap: the events flowing out of a component, sampled at limit, as Vector\'s tap query asks', async () => {
        const s = await open(protocol);
        s.subscribe('9', doc('subscriptions/output_events_by_component_id_patterns.graphql'), { outputsPatterns: ['t'], inputsPatterns: null, limit: 3, interval: 20, encoding: 'JSON' });
        const [matched] = await s.waitForData('9', () => true);
        expect(matched!.outputEventsByComponentIdPatterns).to.deep.equal([{ __typename: 'EventNotification', message: "[tap] Pattern 't' successfully matched." }]);
        feeds.get('in')!.next(events(10, 'tap'));
        const [batch] = await s.waitForData('9', (d) => (d.outputEventsByComponentIdPatterns as Row[])[0]?.__typename === 'Log');
        const logs = batch!.outputEventsByComponentIdPatterns as Row[];
        expect(logs).to.have.length(3);
        for (const l of logs) {
          expect(l).to.include({ __typename: 'Log', componentId: 't', componentType: 'remap', componentKind: 'transform', timestamp: null });
          expect(JSON.parse(l.string as string)).to.deep.equal({ message: l.message, tagged: true });
          expect(l.message).to.match(/^tap\d$/);
        }
        const order = logs.map((l) => Number((l.message as string).slice(3)));
        expect(order).to.deep.equal([...order].sort((a, b) => a - b));
        s.stop('9');
      });
    });
  }

  it('answers every metric subscription document of Vector with exact values', async () => {
    const t = { component_kind: 'transform', component_type: 'remap', component_name: 't' };
    topo.registry.counter('component_errors_total', { component_id: 't', ...t, error_type: 'x', stage: 'processing' }).add(2);
    topo.registry.counter('component_received_bytes_total', { component_id: 'in', component_kind: 'source', component_type: 'test_feed', component_name: 'in' }).add(123);
    topo.registry.counter('component_sent_bytes_total', { component_id: 'out', component_kind: 'sink', component_type: 'test_collect', component_name: 'out' }).add(456);
    const s = await open('legacy');
    const cases: [string, (d: Record<string, unknown>) => unknown, unknown][] = [
      ['subscriptions/component_received_bytes_totals.graphql', (d) => d.componentReceivedBytesTotals, [{ componentId: 'in', metric: { receivedBytesTotal: 123 } }]],
      ['subscriptions/component_sent_bytes_totals.graphql', (d) => d.componentSentBytesTotals, [{ componentId: 'out', metric: { sentBytesTotal: 456 } }]],
      ['subscriptions/component_received_bytes_throughputs.graphql', (d) => d.componentReceivedBytesThroughputs, [{ componentId: 'in', throughput: 0 }]],
      ['subscriptions/component_sent_bytes_throughputs.graphql', (d) => d.componentSentBytesThroughputs, [{ componentId: 'out', throughput: 0 }]],
      ['subscriptions/component_errors_totals.graphql', (d) => d.componentErrorsTotals, [{ componentId: 't', metric: { errorsTotal: 2 } }]],
      ['subscriptions/component_allocated_bytes.graphql', (d) => d.componentAllocatedBytes, []],
      ['tests/subscriptions/errors_total.graphql', (d) => d.errorsTotal, { errorsTotal: 2 }],
    ];
    cases.forEach(([file], i) => s.subscribe(`c${i}`, doc(file), { interval: 20 }));
    for (const [i, [file, pick, want]] of cases.entries()) {
      if (file.endsWith('errors_total.graphql')) {
        // one item per `*_errors_total` series per tick: the one with 2 comes among them
        await s.waitForData(`c${i}`, (d) => JSON.stringify(pick(d)) === JSON.stringify(want));
        continue;
      }
      const [first] = await s.waitForData(`c${i}`, () => true);
      expect(pick(first!), file).to.deep.equal(want);
    }
    expect(s.messages.filter((m) => m.type === 'error')).to.deep.equal([]);
  });

  it('errorsTotal sends one item per error series in a tick, however many there are', async () => {
    for (let i = 0; i < 25; i++) topo.registry.counter('decode_errors_total', { component_id: `x${i}` }).add(i + 1);
    const n = topo.registry.all().filter((x) => x.name.endsWith('_errors_total')).length;
    expect(n).to.be.at.least(25);
    const s = await open('graphql-transport-ws');
    s.subscribe('e', doc('tests/subscriptions/errors_total.graphql'), { interval: 60_000 }); // one tick within the test
    const items = await s.waitForData('e', () => true, n);
    expect(items).to.have.length(n);
    expect(items.map((d) => (d.errorsTotal as { errorsTotal: number }).errorsTotal)).to.include.members([1, 25]);
  });

  it('componentAdded / componentRemoved on reload, and tap notices re-evaluated', async () => {
    const s = await open('legacy');
    s.subscribe('a', doc('subscriptions/component_added.graphql'));
    s.subscribe('r', doc('subscriptions/component_removed.graphql'));
    s.subscribe('tap', 'subscription { outputEventsByComponentIdPatterns(outputsPatterns: ["extra"], interval: 20) { __typename ... on EventNotification { message notification { __typename ... on Matched { pattern } ... on NotMatched { pattern } } } } }');
    await s.waitForData('tap', () => true);
    await topo.reload(configFromObject({ ...CONFIG, sources: { ...CONFIG.sources, extra: { type: 'test_never' } }, sinks: { out: { type: 'test_collect', inputs: ['t', 'extra'] } } }, testCatalog));
    const [added] = await s.waitForData('a', () => true);
    expect(added).to.deep.equal({ componentAdded: { __typename: 'Source', componentId: 'extra', componentType: 'test_never' } });
    await s.waitForData('tap', (d) => JSON.stringify(d).includes('successfully matched'));
    await topo.reload(configFromObject(CONFIG, testCatalog));
    const [removed] = await s.waitForData('r', () => true);
    expect(removed).to.deep.equal({ componentRemoved: { __typename: 'Source', componentId: 'extra' } });
    const notices = await s.waitForData('tap', () => true, 3);
    expect(notices.map((d) => (d.outputEventsByComponentIdPatterns as Row[])[0])).to.deep.equal([
      { __typename: 'EventNotification', message: "[tap] Pattern 'extra' failed to match: will retry on configuration reload.", notification: { __typename: 'NotMatched', pattern: 'extra' } },
      { __typename: 'EventNotification', message: "[tap] Pattern 'extra' successfully matched.", notification: { __typename: 'Matched', pattern: 'extra' } },
      { __typename: 'EventNotification', message: "[tap] Pattern 'extra' failed to match: will retry on configuration reload.", notification: { __typename: 'NotMatched', pattern: 'extra' } },
    ]);
  });

  it('a tap client that never reads leaves the pipeline unaffected: every event delivered, the source never held back', async () => {
    const s = await open('legacy');
    s.subscribe('slow', doc('subscriptions/output_events_by_component_id_patterns.graphql'), { outputsPatterns: ['*'], inputsPatterns: null, limit: 10_000, interval: 10, encoding: 'JSON' });
    await s.waitForData('slow', () => true);
    // the client stops reading: the kernel buffers fill and the server can no longer write
    (s.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const gate = topo.sourceGate('in')!;
    const start = count('out');
    let closedSeen = false;
    const big = 'x'.repeat(2000);
    for (let i = 0; i < 300; i++) {
      feeds.get('in')!.next(Array.from({ length: 100 }, (_, j) => new LogEvent({ message: `${i}-${j}`, big }, new EventMetadata('in', 'test_feed'))));
      if (!gate.isOpen) closedSeen = true;
      await new Promise((r) => setImmediate(r));
    }
    await until(() => count('out') === start + 30_000, 30_000, 'every event at out');
    expect(closedSeen).to.equal(false);
  });
});
