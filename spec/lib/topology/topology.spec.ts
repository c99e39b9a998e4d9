import { expect } from 'chai';
import { VirtualTimeScheduler } from 'rxjs';
import { DRAIN_NOTICE_MS, Topology } from '../../../lib/topology/topology.js';
import { configFromObject } from '../../../lib/config/load.js';
import { LogRoot } from '../../../lib/log.js';
import { BatchNotifier, type DeliveryStatus, type EventBatch, LogEvent, EventMetadata, attachNotifier } from '../../../lib/event.js';
import { collected, feeds, testCatalog } from '../../helpers/test-components.js';
import { until } from '../../helpers/wait.js';

const quiet = () => new LogRoot('error', { write() {} });
const ev = (msg: string): LogEvent => new LogEvent({ message: msg }, new EventMetadata('in', 'test_feed'));
const count = (id: string) => (collected.get(id) ?? []).reduce((n, b) => n + b.length, 0);
const messages = (id: string) => (collected.get(id) ?? []).flat().map((e) => (e as LogEvent).fields.message);

describe('topology', () => {
  beforeEach(() => {
    collected.clear();
    feeds.clear();
  });

  it('fans out copies: a consumer mutating its events does not affect another', async () => {
    const topo = new Topology({ log: quiet() });
    await topo.start(
      configFromObject(
        {
          sources: { in: { type: 'test_feed' } },
          sinks: { a: { type: 'test_collect', inputs: ['in'] }, b: { type: 'test_collect', inputs: ['in'] } },
        },
        testCatalog,
      ),
    );
    const batch = [ev('x')];
    feeds.get('in')!.next(batch);
    await until(() => count('a') === 1 && count('b') === 1);
    const a = collected.get('a')![0]![0] as LogEvent;
    const b = collected.get('b')![0]![0] as LogEvent;
    expect(a).to.not.equal(b);
    a.fields.message = 'changed';
    expect(b.fields.message).to.equal('x');
    await topo.stop(1000);
  });

  it('routes named outputs and resolves wildcards', async () => {
    const topo = new Topology({ log: quiet() });
    await topo.start(
      configFromObject(
        {
          sources: { in: { type: 'test_feed' } },
          transforms: { r: { type: 'route', inputs: ['in'], route: { logs: { type: 'is_log' }, metrics: { type: 'is_metric' } } } },
          sinks: { logs: { type: 'test_collect', inputs: ['r.logs'] }, every: { type: 'test_collect', inputs: ['r.*'] }, none: { type: 'test_collect', inputs: ['r.metrics'] } },
        },
        testCatalog,
      ),
    );
    feeds.get('in')!.next([ev('a'), ev('b')]);
    await until(() => count('logs') === 2 && count('every') === 2);
    expect(count('none')).to.equal(0);
    await topo.stop(1000);
  });

  it('settles acknowledgements only after the sink delivered, when the sink asks for them', async () => {
    const topo = new Topology({ log: quiet() });
    await topo.start(
      configFromObject(
        { sources: { in: { type: 'test_feed' } }, sinks: { out: { type: 'test_stuck', inputs: ['in'] }, ok: { type: 'test_collect', inputs: ['in'], acknowledgements: { enabled: true } } } },
        testCatalog,
      ),
    );
    const statuses: DeliveryStatus[] = [];
    const batch: EventBatch = [ev('1'), ev('2')];
    attachNotifier(batch, new BatchNotifier((s) => statuses.push(s)));
    feeds.get('in')!.next(batch);
    await until(() => count('ok') === 2);
    // 'out' has no acknowledgements: it released its copies on entering its buffer
    await until(() => statuses.length === 1);
    expect(statuses).to.deep.equal(['delivered']);
    await topo.stop(100);
  });

  it('holds acknowledgements while an acknowledging sink has not delivered', async () => {
    const topo = new Topology({ log: quiet() });
    await topo.start(
      configFromObject({ acknowledgements: { enabled: true }, sources: { in: { type: 'test_feed' } }, sinks: { out: { type: 'test_stuck', inputs: ['in'] } } }, testCatalog),
    );
    const statuses: DeliveryStatus[] = [];
    const batch: EventBatch = [ev('1')];
    attachNotifier(batch, new BatchNotifier((s) => statuses.push(s)));
    feeds.get('in')!.next(batch);
    await new Promise((r) => setTimeout(r, 100));
    expect(statuses).to.deep.equal([]);
    await topo.stop(100);
  });

  it('reload: a changed sink keeps its buffer, the source keeps running, nothing is lost', async () => {
    const base = (codecTag: string) =>
      configFromObject(
        {
          sources: { in: { type: 'test_feed' } },
          transforms: { f: { type: 'filter', inputs: ['in'], condition: { type: 'is_log' } } },
          sinks: { out: { type: 'test_collect', inputs: ['f'], buffer: { max_events: 10_000 } }, [codecTag]: { type: 'blackhole', inputs: ['f'], print_interval_secs: 0 } },
        },
        testCatalog,
      );
    const topo = new Topology({ log: quiet() });
    await topo.start(base('bh1'));
    const feed = feeds.get('in')!;
    let n = 0;
    const send = (k: number) => {
      for (let i = 0; i < k; i++) feed.next([ev(String(n++))]);
    };
    send(500);
    const next = configFromObject(
      {
        sources: { in: { type: 'test_feed' } },
        transforms: { f: { type: 'filter', inputs: ['in'], condition: { type: 'is_log' } } },
        sinks: { out: { type: 'test_collect', inputs: ['f'], buffer: { max_events: 10_000 }, acknowledgements: { enabled: false } }, bh2: { type: 'blackhole', inputs: ['f'], print_interval_secs: 0 } },
      },
      testCatalog,
    );
    const diff = await topo.reload(next);
    expect(diff.changed).to.deep.equal(['out']);
    expect(diff.added).to.deep.equal(['bh2']);
    expect(diff.removed).to.deep.equal(['bh1']);
    expect(feeds.get('in')).to.equal(feed, 'the unchanged source must not be rebuilt');
    send(500);
    await until(() => count('out') === 1000, 10_000, 'all 1000 events at the reloaded sink');
    expect(messages('out')).to.deep.equal(Array.from({ length: 1000 }, (_, i) => String(i)));
    await topo.stop(1000);
  });

  it('reload of a global option rebuilds everything without the topology counting as finished', async () => {
    const config = (timezone: string) =>
      configFromObject({ timezone, sources: { in: { type: 'test_feed' } }, sinks: { out: { type: 'test_collect', inputs: ['in'] } } }, testCatalog);
    const topo = new Topology({ log: quiet() });
    await topo.start(config('UTC'));
    let finished = false;
    void topo.whenFinished().then(() => (finished = true));
    const first = topo.reload(config('Europe/Berlin'));
    const second = topo.reload(config('Asia/Tokyo'));
    expect((await first).changed).to.deep.equal(['in', 'out']);
    expect((await second).changed).to.deep.equal(['in', 'out']);
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(finished, 'the sinks a reload replaced are not the end of the topology').to.equal(false);
    feeds.get('in')!.next([ev('after')]);
    await until(() => messages('out').includes('after'), 10_000, 'an event through the rebuilt pipeline');
    await topo.stop(1000);
  });

  it('an invalid reload keeps the running topology', async () => {
    const topo = new Topology({ log: quiet() });
    await topo.start(configFromObject({ sources: { in: { type: 'test_feed' } }, sinks: { out: { type: 'test_collect', inputs: ['in'] } } }, testCatalog));
    const bad = configFromObject({ sources: { in: { type: 'test_feed' } }, sinks: { out: { type: 'test_collect', inputs: ['nope*'] } } }, { ...testCatalog });
    let thrown: unknown;
    try {
      await topo.reload(bad);
    } catch (e) {
      thrown = e;
    }
    expect(String(thrown)).to.match(/nope\*/);
    feeds.get('in')!.next([ev('still')]);
    await until(() => count('out') === 1);
    await topo.stop(1000);
  });

  it('drains buffers on stop and completes transforms so they flush', async () => {
    const topo = new Topology({ log: quiet() });
    await topo.start(configFromObject({ sources: { in: { type: 'test_feed' } }, sinks: { out: { type: 'test_collect', inputs: ['in'] } } }, testCatalog));
    for (let i = 0; i < 100; i++) feeds.get('in')!.next([ev(String(i))]);
    expect(await topo.stop(5000)).to.equal(true);
    expect(count('out')).to.equal(100);
  });

  it('a source or sink that fails before its first batch or delivery failed to start', async () => {
    const topo = new Topology({ log: quiet() });
    const seen: string[] = [];
    topo.failures$.subscribe((f) => seen.push(f.id));
    await topo.start(
      configFromObject(
        { sources: { in: { type: 'test_failing' }, ok: { type: 'test_feed' } }, sinks: { out: { type: 'test_failing', inputs: ['in', 'ok'] } } },
        testCatalog,
      ),
    );
    await until(() => topo.failures.length === 2, 10_000, 'both failures');
    expect(topo.failures.map((f) => [f.kind, f.id, f.atStart, f.error])).to.have.deep.members([
      ['sink', 'out', true, 'cannot open the destination'],
      ['source', 'in', true, 'listen EADDRINUSE: address already in use'],
    ]);
    expect(seen).to.have.members(['in', 'out']);
    await topo.stop(1000);
  });

  it('a sink that failed after delivering did not fail to start', async () => {
    const topo = new Topology({ log: quiet() });
    await topo.start(configFromObject({ sources: { in: { type: 'test_feed' } }, transforms: {}, sinks: { out: { type: 'test_collect', inputs: ['in'] } } }, testCatalog));
    feeds.get('in')!.error(new Error('peer went away'));
    await topo.whenFinished();
    expect(topo.failures.map((f) => [f.id, f.atStart])).to.deep.equal([['in', true]]);
    await topo.stop(1000);
    const later = new Topology({ log: quiet() });
    feeds.clear();
    await later.start(configFromObject({ sources: { in: { type: 'test_feed' } }, sinks: { out: { type: 'test_collect', inputs: ['in'] } } }, testCatalog));
    feeds.get('in')!.next([ev('x')]);
    await until(() => count('out') === 1);
    feeds.get('in')!.error(new Error('peer went away'));
    await later.whenFinished();
    expect(later.failures.map((f) => [f.id, f.atStart])).to.deep.equal([['in', false]]);
    await later.stop(1000);
  });

  it('a drain still running after DRAIN_NOTICE_MS says once which sinks it waits for, how many events, and the limit (virtual time)', async () => {
    const lines: string[] = [];
    const scheduler = new VirtualTimeScheduler();
    const topo = new Topology({ log: new LogRoot('info', { write: (l) => lines.push(l) }), scheduler });
    await topo.start(configFromObject({ sources: { in: { type: 'test_feed' } }, sinks: { hung: { type: 'test_stuck', inputs: ['in'] } } }, testCatalog));
    feeds.get('in')!.next([ev('a'), ev('b')]);
    feeds.get('in')!.next([ev('c')]);
    await until(() => topo.bufferedEvents('hung') === 1, 10_000, 'the stuck sink to hold its first batch');
    let forceNow!: () => void;
    const force = new Promise<void>((r) => (forceNow = r));
    const stopped = topo.stop({ deadlineMs: 60_000, force });
    scheduler.maxFrames = DRAIN_NOTICE_MS - 1;
    scheduler.flush();
    expect(lines.join('')).not.to.include('Still draining');
    scheduler.maxFrames = Infinity;
    scheduler.flush();
    const notice = lines.filter((l) => l.includes('Still draining'));
    expect(notice).to.have.length(1);
    expect(notice[0]).to.include('waiting for sink "hung" (3 events); forced after 60 s.').and.include('events=3');
    forceNow();
    expect(await stopped).to.equal(false);
  });
});
