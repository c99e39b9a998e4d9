/**
 * What a source that waits for end-to-end acknowledgements learns (sink-level
 * `acknowledgements.enabled`): the topology settles its notifier from the sink's Delivery, so
 * only an indexer acknowledgement makes a batch delivered.
 */
import { expect } from 'chai';
import { configFromObject } from '../../../../lib/config/load.js';
import { BatchNotifier, type DeliveryStatus, type EventBatch, attachNotifier } from '../../../../lib/event.js';
import { LogRoot } from '../../../../lib/log.js';
import { Topology } from '../../../../lib/topology/topology.js';
import { feeds, testCatalog } from '../../../helpers/test-components.js';
import { until } from '../../../helpers/wait.js';
import { type HecPeer, startHec } from '../../../peers/hec.js';
import { counter } from '../../shared/hec/harness.js';
import { TOKEN } from './harness.js';

const quiet = () => new LogRoot('error', { write() {} });

describe('connectors/sinks/siem_hec_metrics: end-to-end acknowledgements seen by the source', function () {
  this.timeout(30_000);
  let hec: HecPeer;
  let topo: Topology | undefined;
  beforeEach(async () => {
    feeds.clear();
    hec = await startHec();
  });
  afterEach(async () => {
    await topo?.stop(1_000);
    topo = undefined;
    await hec.close();
  });

  /** Starts `feed -> siem_hec_metrics` and sends one acknowledged batch; returns the statuses the source got. */
  async function run(sink: Record<string, unknown>): Promise<DeliveryStatus[]> {
    topo = new Topology({ log: quiet() });
    await topo.start(
      configFromObject(
        {
          sources: { in: { type: 'test_feed', data_type: 'metric' } },
          sinks: { hec: { type: 'siem_hec_metrics', inputs: ['in'], endpoint: hec.url, default_token: TOKEN, healthcheck: { enabled: false }, batch: { timeout_secs: 0.01 }, ...sink } },
        },
        testCatalog,
      ),
    );
    const statuses: DeliveryStatus[] = [];
    const batch: EventBatch = [counter('a', 1), counter('b', 2)];
    attachNotifier(batch, new BatchNotifier((s) => statuses.push(s)));
    feeds.get('in')!.next(batch);
    return statuses;
  }

  it('acked late: the source hears nothing until the collector reports the id, then delivered', async () => {
    hec.setAckMode({ afterQueries: 1 });
    const statuses = await run({ acknowledgements: { enabled: true, query_interval: 1, retry_limit: 5 } });
    await until(() => hec.ackQueries.length === 1, 10_000, 'the first ack query (answered false)');
    expect(hec.metrics).to.have.length(2);
    expect(statuses).to.deep.equal([]);
    await until(() => statuses.length === 1, 10_000, 'the source to settle');
    expect(statuses).to.deep.equal(['delivered']);
    expect(hec.ackQueries).to.have.length(2);
  });

  it('never acked: errored after retry_limit queries, although the collector answered 200', async () => {
    hec.setAckMode({ never: true });
    const statuses = await run({ acknowledgements: { enabled: true, query_interval: 1, retry_limit: 2 } });
    await until(() => statuses.length === 1, 10_000, 'the source to settle');
    expect(statuses).to.deep.equal(['errored']);
    expect(hec.ackQueries).to.have.length(2);
    expect(hec.requests.filter((r) => r.path === '/services/collector/event').map((r) => r.headers['x-splunk-request-channel'])).to.have.length(1);
  });

  it('ack id lost by the collector: errored', async () => {
    hec.setAckMode({ lose: (id) => id === 0 });
    const statuses = await run({ acknowledgements: { enabled: true, query_interval: 1, retry_limit: 1 } });
    await until(() => statuses.length === 1, 10_000, 'the source to settle');
    expect(statuses).to.deep.equal(['errored']);
  });

  it('acknowledgements.enabled = false: the source is released when the events enter the buffer, acked or not', async () => {
    hec.setAckMode({ never: true });
    const statuses = await run({ acknowledgements: { enabled: false, query_interval: 1, retry_limit: 30 } });
    await until(() => statuses.length === 1, 10_000, 'the source to settle');
    expect(statuses).to.deep.equal(['delivered']);
    expect(hec.ackQueries).to.have.length(0);
  });
});
