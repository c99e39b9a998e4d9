/**
 * The host pipeline in the running daemon: `host_metrics` (on a fake /proc and /sys with known
 * values, through Vector's PROCFS_ROOT and SYSFS_ROOT) and `internal_metrics` into two `aggregate`
 * transforms (Auto and Count) into `file` sinks, through the CLI. The aggregated values are
 * checked against the known files and the number of scrapes.
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWeir } from '../helpers/weir-process.js';
import { type FakeRoot, makeFakeRoot } from '../connectors/sources/host_metrics/fake-root.js';

interface Line {
  name: string;
  namespace?: string;
  tags?: Record<string, string>;
  kind: string;
  gauge?: { value: number };
  counter?: { value: number };
}

const read = (path: string): Line[] =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Line)
    : [];

describe('host_metrics + internal_metrics -> aggregate -> file, in the daemon', function () {
  this.timeout(90_000);
  let dir: string;
  let root: FakeRoot;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'weir-host-agg-'));
    root = makeFakeRoot();
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    root.remove();
  });

  it('keeps the latest value per series each interval; the shutdown flush counts every scrape of the run', async () => {
    const latest = join(dir, 'latest.json');
    const counted = join(dir, 'counted.json');
    const cfg = join(dir, 'host.toml');
    writeFileSync(
      cfg,
      `
[sources.host]
type = "host_metrics"
collectors = ["memory", "load", "host"]
scrape_interval_secs = 0.2

[sources.weir]
type = "internal_metrics"
scrape_interval_secs = 0.2

[transforms.per_interval]
type = "aggregate"
inputs = ["host", "weir"]
interval_ms = 1500

# an interval longer than the run: only the flush at shutdown writes
[transforms.scrapes]
type = "aggregate"
inputs = ["host"]
interval_ms = 600000
mode = "Count"

[sinks.latest]
type = "file"
inputs = ["per_interval"]
path = "${latest}"
encoding.codec = "json"

[sinks.counted]
type = "file"
inputs = ["scrapes"]
path = "${counted}"
encoding.codec = "json"
`,
    );
    const weir = startWeir(['--config', cfg], { env: { PROCFS_ROOT: root.proc, SYSFS_ROOT: root.sys } });
    // two flushes of the interval (a poll with a generous limit: the daemon is an outside process)
    const deadline = Date.now() + 60_000;
    while (read(latest).filter((l) => l.name === 'memory_total_bytes').length < 2) {
      if (Date.now() > deadline || weir.child.exitCode !== null) throw new Error(`no two flushes: ${weir.stderr()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    weir.child.kill('SIGTERM');
    const { code } = await weir.exited;
    expect(code, weir.stderr()).to.equal(0);

    const lines = read(latest);
    const total = lines.filter((l) => l.name === 'memory_total_bytes');
    // one per flush
    expect(total.length).to.be.at.least(2);
    for (const l of total) {
      expect(l).to.deep.include({ namespace: 'host', kind: 'absolute', gauge: { value: 16000 * 1024 } });
      expect(l.tags!.collector).to.equal('memory');
    }
    expect(lines.filter((l) => l.name === 'load5').map((l) => l.gauge!.value)).to.deep.equal(total.map(() => 0.25));

    // the shutdown flush: one counter of every scrape of the run (two intervals of 1.5 s at least, a scrape every 0.2 s)
    const counts = read(counted).filter((l) => l.name === 'memory_total_bytes');
    expect(counts).to.have.length(1);
    expect(counts[0]).to.deep.include({ namespace: 'host', kind: 'absolute' });
    expect(counts[0]!.counter!.value).to.be.at.least(8);
    const received = lines.filter((l) => l.name === 'component_received_events_total' && l.tags?.component_id === 'host');
    expect(received.length).to.be.at.least(2);
    // weir's own counter: the latest value of each interval, never going down
    for (let i = 1; i < received.length; i++) expect(received[i]!.counter!.value).to.be.at.least(received[i - 1]!.counter!.value);
    expect(weir.stderr()).to.include('0 events lost');
  });
});
