import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../helpers/free-port.js';
import { until } from '../../../helpers/wait.js';
import { startWeir } from '../../../helpers/weir-process.js';
import { type Influxdb1, sharedInfluxdb1 } from '../../../peers/influxdb1.js';
import { type Influxdb2Peer, startInfluxdb2 } from '../../../peers/influxdb2.js';
import { uniqueName } from './harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-tsdb-daemon-'));

/** Polls an async condition on real time (a separate process writes, the test reads). */
async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? String(x) : x))}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('connectors/sinks/tsdb_metrics: the daemon (compiled CLI)', function () {
  this.timeout(60_000);
  let influx: Influxdb1;
  before(async () => {
    influx = await sharedInfluxdb1();
  });

  it('internal_metrics -> tsdb_metrics (generation 1) into the real InfluxDB: counters as deltas, gauges, histograms; clean exit', async () => {
    const db = uniqueName('weir_daemon');
    await influx.createDatabase(db);
    const cfg = join(tmp, 'v1.toml');
    writeFileSync(
      cfg,
      [
        '[sources.self]',
        'type = "internal_metrics"',
        'scrape_interval_secs = 0.2',
        '[sinks.tsdb]',
        'type = "tsdb_metrics"',
        'inputs = ["self"]',
        `endpoint = "${influx.url}"`,
        `database = "${db}"`,
        'tags.deployment = "test"',
        'batch.timeout_secs = 0.1',
        '',
      ].join('\n'),
    );
    const p = startWeir(['--config', cfg, '--require-healthy']);
    try {
      // the sink's own sent counter: absolute in the source, deltas on the wire (the first scrape writes nothing)
      const rows = await eventually(() => influx.select(db, 'weir.component_sent_events_total'), (r) => r.some((x) => (x.value as number) > 0 && x.component_id === 'tsdb'), 'sent-event deltas');
      expect(rows.every((r) => r.metric_type === 'counter' && r.deployment === 'test')).to.equal(true);
      const histogram = await eventually(() => influx.select(db, 'weir.component_received_events_count'), (r) => r.length > 0, 'a histogram');
      expect(histogram[0]!.metric_type).to.equal('histogram');
      expect(Object.keys(histogram[0]!).some((k) => k.startsWith('bucket_'))).to.equal(true);
    } finally {
      p.child.kill('SIGINT');
    }
    const { code } = await p.exited;
    expect(code, p.stderr()).to.equal(0);
    expect(p.stderr()).to.include('0 events lost');
  });

  it('generation 2 to the strict server through the daemon', async () => {
    const peer: Influxdb2Peer = await startInfluxdb2({ token: 'daemon-token', orgs: { acme: ['metrics'] } });
    const cfg = join(tmp, 'v2.toml');
    writeFileSync(
      cfg,
      `[sources.self]\ntype = "internal_metrics"\nscrape_interval_secs = 0.2\n[sinks.tsdb]\ntype = "tsdb_metrics"\ninputs = ["self"]\nendpoint = "${peer.url}"\norg = "acme"\nbucket = "metrics"\ntoken = "daemon-token"\ndefault_namespace = "x"\nbatch.timeout_secs = 0.1\n`,
    );
    const p = startWeir(['--config', cfg, '--require-healthy']);
    try {
      await until(() => peer.points.length > 0, 20_000, 'points at the generation 2 server');
      expect(peer.requests.find((r) => r.path === '/health')).to.not.equal(undefined);
      expect(peer.points.every((pt) => pt.measurement.startsWith('weir.') && pt.org === 'acme')).to.equal(true);
    } finally {
      p.child.kill('SIGINT');
      await p.exited;
      await peer.close();
    }
  });

  it('--require-healthy exits non-zero when nothing answers the health check', async () => {
    const port = await freePort();
    const cfg = join(tmp, 'unhealthy.toml');
    writeFileSync(cfg, `[sources.self]\ntype = "internal_metrics"\n[sinks.tsdb]\ntype = "tsdb_metrics"\ninputs = ["self"]\nendpoint = "http://127.0.0.1:${port}"\ndatabase = "d"\n`);
    const p = startWeir(['--config', cfg, '--require-healthy']);
    const { code } = await p.exited;
    expect(code).to.equal(1);
    expect(p.stderr()).to.include('Healthcheck failed.').and.include('component_id=tsdb');
  });
});
