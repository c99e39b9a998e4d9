/** `cloudw_monitor_logs` health check: DescribeLogGroups with the group name as prefix, never retried. */
import { expect } from 'chai';
import { cloudwMonitorLogsHealthcheck } from '../../../../connectors/sinks/cloudw_monitor_logs/sink.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { type CloudwatchLogsPeer, startCloudwatchLogs } from '../../../peers/cloudwatch-logs.js';
import { logsConfig, operation } from './harness.js';

describe('connectors/sinks/cloudw_monitor_logs: health check', () => {
  let peer: CloudwatchLogsPeer;
  before(async () => {
    peer = await startCloudwatchLogs();
  });
  after(() => peer.close());
  beforeEach(() => {
    peer.groups.clear();
    peer.requests.length = 0;
  });
  const ctx = testSinkContext('cloudw_monitor_logs');
  const check = (extra: Record<string, unknown> = {}) => cloudwMonitorLogsHealthcheck(logsConfig(peer.url, extra), ctx);
  const failure = (p: Promise<void>) => p.then(() => undefined, (err: Error) => err.message);

  it('healthy when the group exists: one DescribeLogGroups with the group name as prefix', async () => {
    peer.createGroup('app');
    peer.createGroup('app2');
    await check({ create_missing_group: false });
    expect(peer.requests.map((r) => operation(r.headers))).to.deep.equal(['DescribeLogGroups']);
    expect(JSON.parse(peer.requests[0]!.raw.toString())).to.deep.equal({ logGroupNamePrefix: 'app', limit: 1 });
  });

  it('a missing group is unhealthy only when create_missing_group is false, or a prefix match is another group', async () => {
    expect(await failure(check())).to.equal(undefined);
    expect(await failure(check({ create_missing_group: false }))).to.match(/log group "app" not found/);
    peer.createGroup('app-other');
    expect(await failure(check({ create_missing_group: false }))).to.match(/not found/);
  });

  it('a templated group name is checked for access only', async () => {
    await check({ group_name: 'app-{{ env }}', create_missing_group: false });
    expect(JSON.parse(peer.requests[0]!.raw.toString())).to.deep.equal({ limit: 1 });
  });

  it('wrong credentials are refused by the server and fail the check, without a retry', async () => {
    const message = await failure(check({ auth: { access_key_id: 'AKIDWEIRTEST', secret_access_key: 'wrong' } }));
    expect(message).to.match(/signature/i);
    expect(peer.requests).to.have.length(1);
  });

  it('healthcheck.enabled = false sends nothing', async () => {
    await check({ healthcheck: { enabled: false }, create_missing_group: false });
    expect(peer.requests).to.have.length(0);
  });
});
