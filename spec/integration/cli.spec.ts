import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runWeir, startWeir } from '../helpers/weir-process.js';
import { until } from '../helpers/wait.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-cli-'));

describe('the weir command line', function () {
  this.timeout(120_000);

  it('--version prints the package version', async () => {
    const { code, stdout } = await runWeir(['--version']);
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    expect(code).to.equal(0);
    expect(stdout.trim()).to.equal(pkg.version);
  });

  it('--help describes each subcommand', async () => {
    const root = await runWeir(['--help']);
    expect(root.stdout).to.include('validate').and.include('list').and.include('--config');
    const val = await runWeir(['validate', '--help']);
    expect(val.stdout).to.include('--no-environment');
  });

  it('list prints every component type with its kind', async () => {
    const { code, stdout } = await runWeir(['list']);
    expect(code).to.equal(0);
    expect(stdout).to.match(/Sources:[\s\S]*demo_logs[\s\S]*Transforms:[\s\S]*filter[\s\S]*Sinks:[\s\S]*blackhole/);
  });

  it('validate exits 0 for a valid config and 78 for an invalid one', async () => {
    const ok = await runWeir(['validate', '--config', 'config/default.toml']);
    expect(ok.code, ok.stdout).to.equal(0);
    expect(ok.stdout).to.include('Validated');
    const bad = join(tmp, 'bad.toml');
    writeFileSync(bad, '[sinks.x]\ntype = "console"\ninputs = []\n');
    const res = await runWeir(['validate', '--no-environment', '--config', bad]);
    expect(res.code).to.equal(78);
    expect(res.stdout).to.include('sinks.x.inputs');
  });

  it('an invalid config makes the daemon exit 78 with the problems on stderr', async () => {
    const bad = join(tmp, 'bad2.toml');
    writeFileSync(bad, '[sources.a]\ntype = "demo_logs"\nformat = "xml"\n[sinks.b]\ntype = "blackhole"\ninputs = ["a"]\n');
    const res = await runWeir(['--config', bad]);
    expect(res.code).to.equal(78);
    expect(res.stderr).to.include('sources.a.format');
  });

  it('npm start pipeline: prints demo events, SIGINT drains and exits 0 with 0 events lost', async () => {
    const p = startWeir(['--config', 'config/default.toml'], { env: { WEIR_DATA_DIR: tmp } });
    await until(() => p.stdout().split('\n').length > 2, 20_000, 'demo events on stdout');
    const first = JSON.parse(p.stdout().split('\n')[0]!) as Record<string, unknown>;
    expect(first).to.have.keys('message', 'timestamp', 'host', 'service', 'source_type');
    const t0 = Date.now();
    p.child.kill('SIGINT');
    const { code } = await p.exited;
    expect(code, p.stderr()).to.equal(0);
    // the demo source stops at once and the console sink has little to drain (a busy machine may be slow)
    expect(Date.now() - t0).to.be.lessThan(30_000);
    expect(p.stderr()).to.include('0 events lost');
    const rows = p.stderr().split('\n').filter((l) => /^\s+(source|transform|sink)\s/.test(l));
    expect(rows).to.have.length(3);
    for (const r of rows) {
      const [, recv, sent] = /received=(\d+) sent=(\d+)/.exec(r)!;
      expect(recv, r).to.equal(sent);
    }
  });

  it('demo_logs(count = 1,000,000) -> blackhole delivers exactly 1,000,000 and exits on its own', async () => {
    const cfg = join(tmp, 'million.toml');
    writeFileSync(cfg, '[sources.gen]\ntype = "demo_logs"\nformat = "json"\ninterval = 0\ncount = 1000000\n[sinks.hole]\ntype = "blackhole"\ninputs = ["gen"]\nprint_interval_secs = 0\n');
    const res = await runWeir(['--config', cfg]);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stderr).to.match(/source\s+gen\s+received=1000000 sent=1000000/);
    expect(res.stderr).to.match(/sink\s+hole\s+received=1000000 sent=1000000 discarded=0 buffered=0/);
    expect(res.stderr).to.include('0 events lost');
  });
});
