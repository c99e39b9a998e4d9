import { expect } from 'chai';
import { Topology } from '../../../lib/topology/topology.js';
import { configFromObject } from '../../../lib/config/load.js';
import { LogRoot } from '../../../lib/log.js';
import { collected, testCatalog } from '../../helpers/test-components.js';
import { until } from '../../helpers/wait.js';

const quiet = () => new LogRoot('error', { write() {} });
const MILLION = 1_000_000;

describe('backpressure (memory buffers)', function () {
  this.timeout(120_000);

  it('block: a sink that never completes pauses the source and caps the buffer', async () => {
    const config = configFromObject(
      {
        data_dir: '/tmp',
        sources: { gen: { type: 'demo_logs', format: 'json', interval: 0, count: MILLION } },
        sinks: { stuck: { type: 'test_stuck', inputs: ['gen'], buffer: { max_events: 500, when_full: 'block' } } },
      },
      testCatalog,
    );
    const topo = new Topology({ log: quiet() });
    await topo.start(config);
    await until(() => topo.sourceGate('gen')!.isOpen === false, 10_000, 'the source gate to close');
    // give the source many turns of the event loop: it must stay paused
    await new Promise((r) => setTimeout(r, 300));
    const produced = topo.registry.sum('component_sent_events_total', { component_id: 'gen' });
    const buffered = topo.bufferedEvents('stuck');
    expect(produced).to.be.lessThan(3000, 'source kept producing while the buffer was full');
    // max_events plus at most the one chunk in flight when the gate closed
    expect(buffered).to.be.at.least(500).and.at.most(500 + 1000);
    expect(topo.registry.sum('buffer_discarded_events_total', { component_id: 'stuck' })).to.equal(0);
    await topo.stop(100);
  });

  it('drop_newest: the source runs to the end, drops are counted, a sibling sink gets everything', async () => {
    const config = configFromObject(
      {
        data_dir: '/tmp',
        sources: { gen: { type: 'demo_logs', format: 'json', interval: 0, count: MILLION } },
        sinks: {
          stuck: { type: 'test_stuck', inputs: ['gen'], buffer: { max_events: 500, when_full: 'drop_newest' } },
          all: { type: 'blackhole', inputs: ['gen'], print_interval_secs: 0 },
        },
      },
      testCatalog,
    );
    const topo = new Topology({ log: quiet() });
    await topo.start(config);
    await until(() => topo.registry.sum('component_sent_events_total', { component_id: 'all' }) === MILLION, 60_000, 'the sibling sink to get every event');
    const dropped = topo.registry.sum('buffer_discarded_events_total', { component_id: 'stuck' });
    const accepted = topo.registry.sum('buffer_received_events_total', { component_id: 'stuck' });
    expect(topo.bufferedEvents('stuck')).to.be.at.most(500);
    expect(accepted + dropped).to.equal(MILLION);
    expect(dropped).to.be.greaterThan(MILLION - 2000);
    await topo.stop(100);
  });

  it('block on one sink stalls the shared source for its siblings too (fan-out waits for every consumer)', async () => {
    collected.clear();
    const config = configFromObject(
      {
        data_dir: '/tmp',
        sources: { gen: { type: 'demo_logs', format: 'json', interval: 0, count: 100_000 } },
        sinks: {
          stuck: { type: 'test_stuck', inputs: ['gen'], buffer: { max_events: 100 } },
          other: { type: 'test_collect', inputs: ['gen'] },
        },
      },
      testCatalog,
    );
    const topo = new Topology({ log: quiet() });
    await topo.start(config);
    await until(() => topo.sourceGate('gen')!.isOpen === false, 10_000, 'the gate to close');
    await new Promise((r) => setTimeout(r, 200));
    const got = (collected.get('other') ?? []).reduce((n, b) => n + b.length, 0);
    expect(got).to.be.lessThan(100_000);
    await topo.stop(100);
  });
});
