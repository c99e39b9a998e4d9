/** `cloudw_monitor_metrics` health check: one PutMetricData of `healthcheck` = 1, never retried. */
import { expect } from 'chai';
import { cloudwMonitorMetricsHealthcheck } from '../../../../connectors/sinks/cloudw_monitor_metrics/sink.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { type CloudwatchMetricsPeer, startCloudwatchMetrics } from '../../../peers/cloudwatch-metrics.js';
import { metricsConfig } from './harness.js';

describe('connectors/sinks/cloudw_monitor_metrics: health check', () => {
  let peer: CloudwatchMetricsPeer;
  before(async () => {
    peer = await startCloudwatchMetrics();
  });
  after(() => peer.close());
  beforeEach(() => {
    peer.datums.length = 0;
    peer.requests.length = 0;
    peer.fault = undefined;
  });
  const ctx = testSinkContext('cloudw_monitor_metrics');
  const check = (extra: Record<string, unknown> = {}) => cloudwMonitorMetricsHealthcheck(metricsConfig(peer.url, extra), ctx);
  const failure = (p: Promise<void>) => p.then(() => undefined, (err: Error) => err.message);

  it('healthy when the service takes one datum healthcheck = 1 in default_namespace', async () => {
    await check({ default_namespace: 'svc' });
    expect(peer.datums.map((d) => [d.namespace, d.name, d.value])).to.deep.equal([['svc', 'healthcheck', 1]]);
  });

  it('a refusal fails the check without a retry; wrong credentials are refused by the server', async () => {
    peer.fault = () => 503;
    expect(await failure(check())).to.not.equal(undefined);
    expect(peer.requests).to.have.length(1);
    peer.fault = undefined;
    expect(await failure(check({ auth: { access_key_id: 'AKIDWEIRTEST', secret_access_key: 'wrong' } }))).to.match(/signature/i);
    expect(peer.datums).to.have.length(0);
  });

  it('healthcheck.enabled = false sends nothing', async () => {
    await check({ healthcheck: { enabled: false } });
    expect(peer.requests).to.have.length(0);
  });
});
