/** Tap in virtual time: pattern matching, notifications, reservoir sampling, drop-newest buffers, reload. */
import { expect } from 'chai';
import { Subject, map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { ApiTopology } from '../../../lib/api/component-index.js';
import { Reservoir, TAP_BUFFER_EVENTS, type TapItem, notices, tap$, checkTapArgs } from '../../../lib/api/tap.js';
import { configFromObject } from '../../../lib/config/load.js';
import { BatchNotifier, type DeliveryStatus, EventMetadata, LogEvent, attachNotifier, settleAll } from '../../../lib/event.js';
import { Fanout } from '../../../lib/topology/fanout.js';
import { type Graph, buildGraph } from '../../../lib/topology/graph.js';
import { MetricsRegistry, ComponentTelemetry } from '../../../lib/telemetry/registry.js';
import { testCatalog } from '../../helpers/test-components.js';
import { mulberry32 } from '../../helpers/seeded-random.js';

/** The parts of a topology tap uses: the graph, one fan-out per output, change notices. */
class FakeTopology implements ApiTopology {
  readonly registry = new MetricsRegistry({});
  currentGraph: Graph | undefined;
  readonly fanouts = new Map<string, Fanout>();
  private readonly changes = new Subject<{ added: string[]; changed: string[]; removed: string[] }>();
  readonly changes$ = this.changes.asObservable();
  load(cfg: Record<string, unknown>): void {
    this.currentGraph = buildGraph(configFromObject(cfg, testCatalog)).graph!;
    const live = new Set<string>();
    for (const n of this.currentGraph.nodes.values())
      for (const o of n.outputs) {
        live.add(o.id);
        if (!this.fanouts.has(o.id)) this.fanouts.set(o.id, new Fanout(o.id, ComponentTelemetry.noop, ComponentTelemetry.noop));
      }
    for (const id of [...this.fanouts.keys()]) if (!live.has(id)) this.fanouts.delete(id);
    this.changes.next({ added: [], changed: [], removed: [] });
  }
  tapOutput(id: string, observer: (b: LogEvent[]) => void) {
    return this.fanouts.get(id)?.addTap(observer as never);
  }
  emit(output: string, messages: string[]): LogEvent[] {
    const batch = messages.map((m) => new LogEvent({ message: m }, new EventMetadata('in', 'test_feed')));
    this.fanouts.get(output)!.emit(batch);
    return batch;
  }
}

const BASE = {
  sources: { in: { type: 'test_feed' }, idle: { type: 'test_never' } },
  transforms: { t: { type: 'remap', inputs: ['in'], source: '.x = 1' } },
  sinks: { out: { type: 'test_collect', inputs: ['t'] }, raw: { type: 'test_collect', inputs: ['in', 'idle'] } },
};

/** A tap item as short text: `N:<message>` for notices, `<component>:<message>` for events. */
const view = (items: TapItem[]) => items.map((i) => (i.kind === 'notification' ? `N:${i.message}` : `${i.componentId}:${(i.event as LogEvent).fields.message}`));
const messages = (n: number, prefix = 'm') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('tap', () => {
  let rx: TestScheduler;
  let topo: FakeTopology;
  beforeEach(() => {
    rx = new TestScheduler((a, e) => {
      expect(a).to.deep.equal(e);
    });
    topo = new FakeTopology();
    topo.load(BASE);
  });

  it('sends Matched, NotMatched and InvalidMatch notices with their texts, at once', () =>
    rx.run(({ expectObservable }) => {
      const out$ = tap$(topo, { outputsPatterns: ['in', 'nope', 'o*'], inputsPatterns: ['raw', 'id*'], intervalMs: 10, limit: 5, scheduler: rx, defer: (f) => f() }).pipe(map(view));
      expectObservable(out$, '^ 5ms !').toBe('(abcdefg)', {
        a: ["N:[tap] Pattern 'in' successfully matched."],
        b: ["N:[tap] Pattern 'raw' successfully matched."],
        c: ["N:[tap] Pattern 'nope' failed to match: will retry on configuration reload."],
        d: ["N:[tap] Pattern 'o*' failed to match: will retry on configuration reload."],
        e: ["N:[tap] Pattern 'id*' failed to match: will retry on configuration reload."],
        f: [`N:[tap] Warning: source inputs cannot be tapped. Input pattern 'id*' matches sources ["idle"]`],
        g: [`N:[tap] Warning: sink outputs cannot be tapped. Output pattern 'o*' matches sinks ["out"]`],
      });
    }));

  it('emits every interval the events of the matched outputs in arrival order; nothing for an empty tick', () =>
    rx.run(({ expectObservable }) => {
      rx.schedule(() => topo.emit('in', ['a', 'b']), 3);
      rx.schedule(() => topo.emit('t', ['c']), 4);
      rx.schedule(() => topo.emit('in', ['d']), 25);
      const out$ = tap$(topo, { outputsPatterns: ['*'], inputsPatterns: [], intervalMs: 10, limit: 5, scheduler: rx, defer: (f) => f() }).pipe(map(view));
      expectObservable(out$, '^ 35ms !').toBe('(mi) 6ms e 19ms f', {
        m: ["N:[tap] Pattern '*' successfully matched."],
        i: [`N:[tap] Warning: sink outputs cannot be tapped. Output pattern '*' matches sinks ["out", "raw"]`],
        e: ['in:a', 'in:b', 't:c'],
        f: ['in:d'],
      });
    }));

  it('taps the outputs feeding the components an input pattern matches', () =>
    rx.run(({ expectObservable }) => {
      rx.schedule(() => topo.emit('in', ['to-t']), 1);
      rx.schedule(() => topo.emit('t', ['to-out']), 2);
      const out$ = tap$(topo, { outputsPatterns: [], inputsPatterns: ['out'], intervalMs: 10, limit: 5, scheduler: rx, defer: (f) => f() }).pipe(map(view));
      expectObservable(out$, '^ 15ms !').toBe('m 9ms e', { m: ["N:[tap] Pattern 'out' successfully matched."], e: ['t:to-out'] });
    }));

  it('samples to `limit`, a subset kept in arrival order', () =>
    rx.run(({ expectObservable }) => {
      rx.schedule(() => topo.emit('in', messages(2)), 5);
      rx.schedule(() => topo.emit('in', messages(40, 'n')), 15);
      const rand = mulberry32(7);
      const out$ = tap$(topo, { outputsPatterns: ['in'], inputsPatterns: [], intervalMs: 10, limit: 3, scheduler: rx, random: rand, defer: (f) => f() }).pipe(
        map((items) => {
          const v = view(items);
          if (v[0]!.startsWith('N:')) return v[0]!;
          const idx = v.map((x) => Number(x.slice(4)));
          const ordered = idx.every((x, i) => i === 0 || x > idx[i - 1]!);
          return `${v[0]!.slice(3, 4)}:${v.length}:${ordered}`;
        }),
      );
      expectObservable(out$, '^ 25ms !').toBe('m 9ms a 9ms b', { m: "N:[tap] Pattern 'in' successfully matched.", a: 'm:2:true', b: 'n:3:true' });
    }));

  it('samples uniformly (Algorithm L) and copies only the chosen events', () => {
    const rand = mulberry32(42);
    const n = 100;
    const limit = 10;
    const trials = 20_000;
    const hits = new Array<number>(n).fill(0);
    const r = new Reservoir(limit, rand);
    for (let t = 0; t < trials; t++) {
      // offered in uneven batches, as outputs emit them
      for (const size of [7, 30, 1, 62]) {
        const base = r.seenCount;
        r.offer(size, (i, slot) => r.put(slot, base + i, { seq: base + i } as never));
      }
      for (const e of r.take() as unknown as { seq: number }[]) hits[e.seq]!++;
    }
    for (const h of hits) expect(h / trials).to.be.within(0.085, 0.115);
    let copies = 0;
    const big = new Reservoir(100, rand);
    for (let b = 0; b < 1000; b++) big.offer(100, () => copies++);
    expect(big.take()).to.have.length(0); // nothing was put
    expect(copies).to.be.within(100, 2000); // ~ limit * (1 + ln(n / limit)) of 100000
  });

  it('holds at most 100 events per output between drains and drops the newest', () =>
    rx.run(({ expectObservable }) => {
      const drains: (() => void)[] = [];
      let dropped = 0;
      rx.schedule(() => topo.emit('in', messages(250)), 2);
      rx.schedule(() => topo.emit('in', ['late']), 3);
      rx.schedule(() => drains.splice(0).forEach((f) => f()), 4);
      rx.schedule(() => topo.emit('in', ['after-drain']), 5);
      const out$ = tap$(topo, { outputsPatterns: ['in'], inputsPatterns: [], intervalMs: 10, limit: 1000, scheduler: rx, defer: (f) => drains.push(f), onDrop: (n) => (dropped += n) }).pipe(map((items) => items.length));
      expectObservable(out$, '^ 15ms !').toBe('a 9ms b', { a: 1, b: TAP_BUFFER_EVENTS + 1 });
      rx.schedule(() => expect(dropped).to.equal(151), 14);
    }));

  it('re-evaluates on reload: NotMatched, then Matched and events once the component exists, NotMatched when it goes', () =>
    rx.run(({ expectObservable }) => {
      const withLate = { ...BASE, sources: { ...BASE.sources, late: { type: 'test_feed' } } };
      rx.schedule(() => topo.load(withLate), 5);
      rx.schedule(() => topo.emit('late', ['hello']), 6);
      rx.schedule(() => {
        const old = topo.fanouts.get('late')!;
        topo.load(BASE);
        old.emit([new LogEvent({ message: 'gone' }, new EventMetadata('late', 'test_feed'))]);
      }, 15);
      const out$ = tap$(topo, { outputsPatterns: ['late'], inputsPatterns: [], intervalMs: 10, limit: 5, scheduler: rx, defer: (f) => f() }).pipe(map(view));
      expectObservable(out$, '^ 35ms !').toBe('a 4ms b 4ms c 4ms d', {
        a: ["N:[tap] Pattern 'late' failed to match: will retry on configuration reload."],
        b: ["N:[tap] Pattern 'late' successfully matched."],
        c: ['late:hello'],
        d: ["N:[tap] Pattern 'late' failed to match: will retry on configuration reload."],
      });
    }));

  it('copies events: later changes do not show, and acknowledgements never wait for the tap', () =>
    rx.run(({ expectObservable }) => {
      let status: DeliveryStatus | undefined;
      rx.schedule(() => {
        const batch = [new LogEvent({ message: 'orig' }, new EventMetadata('in', 'test_feed'))];
        attachNotifier(batch, new BatchNotifier((s) => (status = s)));
        topo.fanouts.get('in')!.emit(batch);
        batch[0]!.fields.message = 'mutated';
        settleAll(batch, 'delivered');
      }, 2);
      rx.schedule(() => expect(status).to.equal('delivered'), 3);
      const out$ = tap$(topo, { outputsPatterns: ['in'], inputsPatterns: [], intervalMs: 10, limit: 5, scheduler: rx, defer: (f) => f() }).pipe(map(view));
      expectObservable(out$, '^ 15ms !').toBe('m 9ms e', { m: ["N:[tap] Pattern 'in' successfully matched."], e: ['in:orig'] });
    }));

  it('detaches from every output when unsubscribed', () => {
    const sub = tap$(topo, { outputsPatterns: ['*'], inputsPatterns: [], intervalMs: 10, limit: 5, scheduler: rx, defer: (f) => f() }).subscribe();
    let seen = 0;
    const spy = topo.fanouts.get('in')!.addTap(() => seen++);
    sub.unsubscribe();
    topo.emit('in', ['x']);
    expect(seen).to.equal(1); // only the spy is left
    spy();
  });

  it('checks limit and interval', () => {
    expect(() => checkTapArgs(0, 500)).to.throw('limit must be between 1 and 10000, got 0');
    expect(() => checkTapArgs(10_001, 500)).to.throw();
    expect(() => checkTapArgs(100, 5)).to.throw('interval must be between 10 and 60000 milliseconds, got 5');
    expect(notices.invalidOutput('p', ['a', 'b']).message).to.equal(`[tap] Warning: sink outputs cannot be tapped. Output pattern 'p' matches sinks ["a", "b"]`);
  });
});
