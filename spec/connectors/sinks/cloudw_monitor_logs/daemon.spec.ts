/**
 * `cloudw_monitor_logs` in the daemon: the example config (config/examples, shown on docs/components/cloudw_monitor_logs.md)
 * runs against the strict CloudWatch Logs server with credentials from the CLOUDW_* variables.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runWeir } from '../../../helpers/weir-process.js';
import { type CloudwatchLogsPeer, startCloudwatchLogs } from '../../../peers/cloudwatch-logs.js';
import { KEY, SECRET, operation } from './harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-cloudw-logs-daemon-'));
const example = readFileSync(join(repoRoot, 'config/examples/cloudw_monitor_logs.toml'), 'utf8');
const env = { CLOUDW_ACCESS_KEY_ID: KEY, CLOUDW_SECRET_ACCESS_KEY: SECRET };

describe('connectors/sinks/cloudw_monitor_logs: the daemon with the example config', function () {
  this.timeout(60_000);
  let peer: CloudwatchLogsPeer;
  before(async () => {
    peer = await startCloudwatchLogs();
  });
  after(() => peer.close());

  it('docs/components/cloudw_monitor_logs.md shows the example sink as it is in config/examples', () => {
    const readme = readFileSync(join(repoRoot, 'docs/components/cloudw_monitor_logs.md'), 'utf8');
    const sink = example.slice(example.indexOf('[sinks.cloudlogs]')).trim();
    expect(readme).to.include(sink);
  });

  it('stdin -> cloudw_monitor_logs: group and stream created, every line stored once in order, gzipped, nothing lost', async () => {
    const cfg = join(tmp, 'logs.toml');
    writeFileSync(cfg, example.replace('region = "eu-west-1"', `region = "us-east-1"\nendpoint = "${peer.url}"`));
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i}`);
    const r = await runWeir(['--config', cfg, '--require-healthy'], { env, input: lines.join('\n') + '\n' });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.include('0 events lost');
    const stored = peer.events('/weir/app', hostname());
    expect(stored.map((e) => (JSON.parse(e.message) as { message: string }).message)).to.deep.equal(lines);
    expect(stored.every((e, i) => i === 0 || e.timestamp >= stored[i - 1]!.timestamp)).to.equal(true);
    const ops = peer.requests.map((r) => operation(r.headers));
    expect(ops[0]).to.equal('DescribeLogGroups');
    expect(ops).to.include.members(['CreateLogGroup', 'CreateLogStream']);
    expect(peer.requests.filter((r) => operation(r.headers) === 'PutLogEvents').every((r) => r.headers['content-encoding'] === 'gzip')).to.equal(true);
  });

  it('wrong credentials: the server refuses the health check and --require-healthy exits non-zero', async () => {
    const cfg = join(tmp, 'nocreds.toml');
    writeFileSync(cfg, example.replace('region = "eu-west-1"', `region = "us-east-1"\nendpoint = "${peer.url}"\nauth.access_key_id = "${KEY}"\nauth.secret_access_key = "wrong"`));
    const r = await runWeir(['--config', cfg, '--require-healthy'], { env, input: 'x\n' });
    expect(r.code).to.not.equal(0);
    expect(r.stderr).to.match(/signature/i);
  });

  it('no credentials anywhere: the health check names the sources it tried and --require-healthy exits non-zero', async () => {
    const cfg = join(tmp, 'none.toml');
    writeFileSync(cfg, example.replace('region = "eu-west-1"', `region = "us-east-1"\nendpoint = "${peer.url}"`));
    const noCredentials = {
      HOME: tmp,
      CLOUDW_SHARED_CREDENTIALS_FILE: join(tmp, 'absent-credentials'),
      CLOUDW_CONFIG_FILE: join(tmp, 'absent-config'),
      CLOUDW_EC2_METADATA_DISABLED: 'true',
    };
    const before = peer.requests.length;
    const r = await runWeir(['--config', cfg, '--require-healthy'], { env: noCredentials, input: 'x\n' });
    expect(r.code).to.not.equal(0);
    expect(r.stderr).to.include('no credentials; tried:');
    expect(peer.requests.length).to.equal(before);
  });
});
