/**
 * `cloudw_monitor_metrics` in the daemon: the example config (config/examples, shown on docs/components/cloudw_monitor_metrics.md)
 * runs against the strict CloudWatch metrics server, and its disk_v1 buffer keeps the metrics the
 * service did not take across a kill -9.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '../../../helpers/wait.js';
import { repoRoot, startWeir } from '../../../helpers/weir-process.js';
import { type CloudwatchMetricsPeer, startCloudwatchMetrics } from '../../../peers/cloudwatch-metrics.js';
import { KEY, SECRET } from './harness.js';

const example = readFileSync(join(repoRoot, 'config/examples/cloudw_monitor_metrics.toml'), 'utf8');
const env = { CLOUDW_ACCESS_KEY_ID: KEY, CLOUDW_SECRET_ACCESS_KEY: SECRET };

describe('connectors/sinks/cloudw_monitor_metrics: the daemon with the example config', function () {
  this.timeout(60_000);
  let peer: CloudwatchMetricsPeer;
  before(async () => {
    peer = await startCloudwatchMetrics();
  });
  after(() => peer.close());

  it('docs/components/cloudw_monitor_metrics.md shows the example sink as it is in config/examples', () => {
    const readme = readFileSync(join(repoRoot, 'docs/components/cloudw_monitor_metrics.md'), 'utf8');
    expect(readme).to.include(example.slice(example.indexOf('[sinks.cloudmetrics]')).trim());
  });

  it('internal_metrics -> cloudw_monitor_metrics with disk_v1: metrics refused before a kill -9 are sent after the restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-cloudw-metrics-daemon-'));
    const cfg = join(dir, 'metrics.toml');
    writeFileSync(
      cfg,
      `data_dir = "${dir}"\n` +
        example.replace('region = "eu-west-1"', `region = "us-east-1"\nendpoint = "${peer.url}"`).replace('scrape_interval_secs = 10', 'scrape_interval_secs = 0.2'),
    );
    // the service is down: every call fails and is retried, the metrics stay in the buffer
    peer.fault = () => 503;
    const first = startWeir(['--config', cfg], { env });
    try {
      await until(() => peer.requests.length >= 3, 30_000, 'three refused calls');
    } finally {
      first.child.kill('SIGKILL');
    }
    await first.exited;
    expect(peer.datums).to.have.length(0);
    const restart = Date.now();
    peer.fault = undefined;
    const second = startWeir(['--config', cfg], { env });
    try {
      await until(() => peer.datums.some((d) => d.timestamp !== undefined && d.timestamp < restart), 30_000, 'metrics scraped before the kill');
    } finally {
      second.child.kill('SIGINT');
    }
    const { code } = await second.exited;
    expect(code, second.stderr()).to.equal(0);
    expect(peer.datums.every((d) => d.namespace === 'weir')).to.equal(true);
    expect(peer.calls.every((c) => c.gzip && c.datums <= 1000)).to.equal(true);
    expect(peer.datums.some((d) => d.name === 'healthcheck')).to.equal(true);
  });
});
