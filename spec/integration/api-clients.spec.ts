/**
 * `weir tap` and `weir top` against a running daemon with the management API on: both speak only
 * the public API. tap prints sampled events as JSON lines (at most `--limit` per interval) and the
 * notifications on stderr; top, run in a real terminal (tmux), shows every component and counts
 * that rise. Both take the API's address with or without the /graphql path.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/free-port.js';
import { until } from '../helpers/wait.js';
import { type WeirProcess, runWeir, startWeir, weirArgs } from '../helpers/weir-process.js';

describe('weir tap and weir top against a running daemon', function () {
  this.timeout(120_000);
  let dir: string;
  let daemon: WeirProcess;
  let url: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'weir-api-clients-'));
    const port = await freePort();
    url = `http://127.0.0.1:${port}/graphql`;
    const config = join(dir, 'weir.toml');
    writeFileSync(
      config,
      `[api]
enabled = true
address = "127.0.0.1:${port}"

[sources.gen]
type = "demo_logs"
format = "shuffle"
lines = ["alpha", "beta"]
interval = 0.01

[transforms.tagged]
type = "remap"
inputs = ["gen"]
source = '.tagged = true'

[sinks.out]
type = "blackhole"
inputs = ["tagged"]
print_interval_secs = 0
`,
    );
    daemon = startWeir(['--config', config]);
    // the API answers once the topology runs
    const deadline = Date.now() + 60_000;
    for (;;) {
      const up = await fetch(url.replace('/graphql', '/health')).then((r) => r.ok, () => false);
      if (up || daemon.child.exitCode !== null) break;
      if (Date.now() > deadline) throw new Error(`the API never answered:\n${daemon.stderr()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(daemon.child.exitCode, daemon.stderr()).to.equal(null);
  });

  after(() => {
    daemon?.child.kill('SIGKILL');
    try {
      execFileSync('tmux', ['kill-session', '-t', tmuxSession]);
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('tap: the transform\'s events as JSON lines, at most --limit per interval, with the match notification', async () => {
    const r = await runWeir(['tap', '--url', url, '--limit', '3', '--interval', '200', '--duration-ms', '2500', 'tagged']);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.contain("[tap] Pattern 'tagged' successfully matched.");
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.length).to.be.at.least(3);
    // 2.5 s at 200 ms: at most 13 intervals of 3
    expect(events.length).to.be.at.most(3 * 13);
    for (const e of events) {
      expect(e.tagged).to.equal(true);
      expect(['alpha', 'beta']).to.include(e.message);
    }
  });

  it('tap --meta --quiet: each event inside its component details, no notifications', async () => {
    const r = await runWeir(['tap', '--url', url, '--limit', '1', '--duration-ms', '1500', '--meta', '--quiet', '--outputs-of', 'gen']);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.equal('');
    const first = JSON.parse(r.stdout.trim().split('\n')[0]!) as Record<string, unknown>;
    expect(first).to.include({ component_id: 'gen', component_kind: 'source', component_type: 'demo_logs' });
    expect((first.event as Record<string, unknown>).tagged).to.equal(undefined);
  });

  for (const form of ['http://host:port', 'host:port']) {
    it(`tap takes the address as written in api.address too (${form}), not only the /graphql URL`, async () => {
      const address = form === 'host:port' ? url.replace(/^http:\/\/|\/graphql$/g, '') : url.replace(/\/graphql$/, '');
      expect(address).to.not.contain('graphql');
      const r = await runWeir(['tap', '--url', address, '--limit', '1', '--duration-ms', '1500', '--quiet', 'tagged']);
      expect(r.code, r.stderr).to.equal(0);
      expect((JSON.parse(r.stdout.trim().split('\n')[0]!) as Record<string, unknown>).tagged).to.equal(true);
    });
  }

  it('tap with an address that is no http URL exits 1 and names it', async () => {
    const r = await runWeir(['tap', '--url', 'ftp://127.0.0.1:1', '--duration-ms', '100']);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.contain('the API address must be http or https; got "ftp://127.0.0.1:1"');
  });

  it('tap against nothing listening exits 69 and says where it looked', async () => {
    const r = await runWeir(['tap', '--url', `http://127.0.0.1:${await freePort()}/graphql`, '--duration-ms', '100']);
    expect(r.code).to.equal(69);
    expect(r.stderr).to.contain('the API is unreachable at');
  });

  const tmuxSession = `weir-top-${process.pid}`;
  it('top in a terminal: every component, its kind and type, and counts that rise', async () => {
    // the address without /graphql, as written in api.address: top appends the path
    const { cmd, argv } = weirArgs(['top', '--url', url.replace(/\/graphql$/, ''), '--interval', '200']);
    const line = [cmd, ...argv].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
    // ink draws only the last frame when it believes it runs under CI: this is a real terminal
    const inTerminal = `env -u CI ${line}`;
    execFileSync('tmux', ['new-session', '-d', '-s', tmuxSession, '-x', '160', '-y', '30', inTerminal]);
    const pane = () => execFileSync('tmux', ['capture-pane', '-p', '-t', tmuxSession]).toString();
    const sentOf = (text: string) => {
      const row = text.split('\n').find((l) => /\bout\s+sink\s+blackhole\b/.test(l));
      const m = row && /blackhole\s+([\d,]+)/.exec(row);
      return m ? Number(m[1]!.replaceAll(',', '')) : undefined;
    };
    let first: number | undefined;
    await until(() => (first = sentOf(pane())) !== undefined && first > 0, 60_000, 'top to show the sink with a count');
    const screen = pane();
    expect(screen).to.contain('Connected');
    expect(screen).to.match(/\bgen\s+source\s+demo_logs\b/);
    expect(screen).to.match(/\btagged\s+transform\s+remap\b/);
    await until(() => (sentOf(pane()) ?? 0) > first!, 30_000, 'the sink count to rise');
  });
});
