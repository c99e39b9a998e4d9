/**
 * A native_json stdin feeds the metrics-only sinks through the compiled CLI: one daemon, one
 * stdin, four sinks, each pointed at its real peer (InfluxDB 1.x) or strict test server. Every
 * metric kind goes in; each peer holds what the sink makes of it, and the kinds a sink cannot
 * represent are dropped there, as Vector's sink drops them.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWeir } from '../helpers/weir-process.js';
import { type CloudwatchMetricsPeer, startCloudwatchMetrics } from '../peers/cloudwatch-metrics.js';
import { type HecPeer, startHec } from '../peers/hec.js';
import { type HumioPeer, startHumio } from '../peers/humio.js';
import { type Influxdb1, sharedInfluxdb1 } from '../peers/influxdb1.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-native-metrics-'));
const HEC_TOKEN = 'weir-token';
const HUMIO_TOKEN = 'weir-ingest-token';
const KEY = 'AKIDWEIRTEST';
const SECRET = 'weir-test-secret';

describe('stdin (native_json) -> every metrics sink, through the CLI', function () {
  this.timeout(120_000);
  let influx: Influxdb1;
  let hec: HecPeer;
  let humio: HumioPeer;
  let cloud: CloudwatchMetricsPeer;
  before(async () => {
    influx = await sharedInfluxdb1();
    hec = await startHec();
    humio = await startHumio();
    cloud = await startCloudwatchMetrics({ accessKeyId: KEY, secretAccessKey: SECRET });
  });
  after(async () => {
    await Promise.all([hec?.close(), humio?.close(), cloud?.close()]);
  });

  it('weir validate --no-environment accepts the config', async () => {
    const cfg = join(tmp, 'validate.toml');
    writeFileSync(cfg, config('http://127.0.0.1:1', 'db', 'http://127.0.0.1:1', 'http://127.0.0.1:1', 'http://127.0.0.1:1'));
    const res = await runWeir(['validate', '--no-environment', '--config', cfg]);
    expect(res.code, res.stdout + res.stderr).to.equal(0);
    expect(res.stdout).to.include('Validated');
  });

  it('every metric kind arrives at each peer as that sink writes it; the daemon exits 0', async () => {
    const db = `weir_native_${process.pid}_${Date.now()}`;
    await influx.createDatabase(db);
    const cfg = join(tmp, 'run.toml');
    writeFileSync(cfg, config(influx.url, db, hec.url, humio.url, cloud.url));
    // recent enough for the cloud service, which refuses datums older than two weeks
    const ms = Math.floor(Date.now() / 1000) * 1000 - 60_000;
    const lines = metricLines(new Date(ms).toISOString());
    const res = await runWeir(['--config', cfg], { input: lines.join('\n') + '\n', env: { CLOUDW_ACCESS_KEY_ID: KEY, CLOUDW_SECRET_ACCESS_KEY: SECRET } });
    expect(res.code, res.stderr).to.equal(0);
    // the five kinds the event collector cannot take are rejected, as Vector rejects them, and the
    // final account counts them lost; the two the cloud service cannot take are dropped on purpose
    // with a warning, as Vector drops them, and shown apart
    expect(res.stderr).to.match(/\n5 events lost\n\s+5 rejected by the sink: sink "hec" \(siem_hec_metrics; encoder_failed\)/);
    expect(res.stderr).to.include('2 events dropped on purpose (cloudw_monitor_metrics "cloud": 2)');
    expect(res.stderr).to.match(/source\s+in\s+received=7 sent=7 discarded=0/);

    // tsdb_metrics: every kind, one measurement each (namespace.name), tags plus metric_type
    const time = BigInt(ms) * 1_000_000n;
    const rows: Record<string, Record<string, unknown>[]> = {};
    for (const m of ['web.requests', 'temp', 'users', 'latency', 'sizes', 'app.duration', 'rpc']) rows[m] = await influx.select(db, m);
    expect(rows).to.deep.equal({
      'web.requests': [{ time, code: '200', host: 'a', metric_type: 'counter', value: 3 }],
      temp: [{ time, room: 'lab', metric_type: 'gauge', value: -1.5 }],
      users: [{ time, metric_type: 'set', value: 2 }],
      // samples 1.0 x3 and 2.5 x1: the histogram statistic adds only the 0.95 quantile
      latency: [{ time, region: 'eu', metric_type: 'distribution', min: 1, max: 2.5, median: 1, avg: 1.375, sum: 5.5, count: 4, 'quantile_0.95': 2.5 }],
      // the summary statistic: the sink's default quantiles
      sizes: [
        { time, metric_type: 'distribution', min: 0.25, max: 0.25, median: 0.25, avg: 0.25, sum: 0.5, count: 2, 'quantile_0.50': 0.25, 'quantile_0.75': 0.25, 'quantile_0.90': 0.25, 'quantile_0.95': 0.25, 'quantile_0.99': 0.25 },
      ],
      'app.duration': [{ time, metric_type: 'histogram', 'bucket_0.005': 1, bucket_1: 4, bucket_inf: 7, count: 7, sum: 12.75 }],
      rpc: [{ time, metric_type: 'summary', 'quantile_0.5': 3, 'quantile_0.99': 11.25, count: 20, sum: 80 }],
    });
    expect(res.stderr).to.match(/sink\s+tsdb\s+received=7 sent=7 discarded=0/);

    // siem_hec_metrics: counters and gauges only; the collector never sees the other five kinds
    const secs = ms / 1000;
    expect(hec.metrics.map(({ token: _t, ...m }) => m).sort(byName)).to.deep.equal([
      { name: 'temp', value: -1.5, dimensions: { room: 'lab' }, time: secs, host: undefined, source: undefined, sourcetype: undefined, index: undefined },
      { name: 'web.requests', value: 3, dimensions: { code: '200', host: 'a' }, time: secs, host: 'a', source: undefined, sourcetype: undefined, index: undefined },
    ]);
    expect(hec.events).to.have.length(2);
    expect(hec.droppedMetrics).to.deep.equal([]);
    expect(res.stderr).to.include('the collector takes counters and gauges only');
    expect(res.stderr).to.match(/sink\s+hec\s+received=7 sent=2 discarded=5/);

    // logsvc_metrics: every kind as a log event (Vector's metric-to-log shape), the host tag as host
    const ingested = Object.fromEntries(humio.events.map((e) => [(e.event as { name: string }).name, { event: e.event, host: e.host, timestamp: e.timestamp }]));
    expect(ingested).to.deep.equal({
      requests: { event: { name: 'requests', namespace: 'web', tags: { code: '200' }, kind: 'incremental', counter: { value: 3 }, host: 'a' }, host: 'a', timestamp: ms },
      temp: { event: { name: 'temp', tags: { room: 'lab' }, kind: 'absolute', gauge: { value: -1.5 } }, host: undefined, timestamp: ms },
      users: { event: { name: 'users', kind: 'incremental', set: { values: ['alice', 'bob'] } }, host: undefined, timestamp: ms },
      latency: {
        event: { name: 'latency', tags: { region: 'eu' }, kind: 'incremental', distribution: { samples: [{ value: 1, rate: 3 }, { value: 2.5, rate: 1 }], statistic: 'histogram' } },
        host: undefined,
        timestamp: ms,
      },
      sizes: { event: { name: 'sizes', kind: 'incremental', distribution: { samples: [{ value: 0.25, rate: 2 }], statistic: 'summary' } }, host: undefined, timestamp: ms },
      // an infinite bound has no JSON number: null, as Vector's JSON writer puts it
      duration: {
        event: {
          name: 'duration',
          namespace: 'app',
          kind: 'absolute',
          aggregated_histogram: { buckets: [{ upper_limit: 0.005, count: 1 }, { upper_limit: 1, count: 4 }, { upper_limit: null, count: 7 }], count: 7, sum: 12.75 },
        },
        host: undefined,
        timestamp: ms,
      },
      rpc: {
        event: { name: 'rpc', kind: 'absolute', aggregated_summary: { quantiles: [{ quantile: 0.5, value: 3 }, { quantile: 0.99, value: 11.25 }], count: 20, sum: 80 } },
        host: undefined,
        timestamp: ms,
      },
    });
    expect(humio.events.every((e) => e.repository === 'weir')).to.equal(true);
    expect(res.stderr).to.match(/sink\s+logsvc\s+received=7 sent=7 discarded=0/);

    // cloudw_monitor_metrics: counters, gauges, sets and distributions as datums; aggregated
    // histograms and summaries have no datum form and are dropped
    const datums = cloud.datums.filter((d) => d.name !== 'healthcheck').sort(byName);
    const datum = (namespace: string, name: string, dimensions: Record<string, string>, v: { value?: number; values?: number[]; counts?: number[] }) => ({
      namespace,
      name,
      dimensions,
      timestamp: ms,
      value: v.value,
      values: v.values,
      counts: v.counts,
    });
    expect(datums.map((d) => ({ ...d, value: d.value, values: d.values, counts: d.counts }))).to.deep.equal([
      datum('weir', 'latency', { region: 'eu' }, { values: [1, 2.5], counts: [3, 1] }),
      datum('web', 'requests', { code: '200', host: 'a' }, { value: 3 }),
      datum('weir', 'sizes', {}, { values: [0.25], counts: [2] }),
      datum('weir', 'temp', { room: 'lab' }, { value: -1.5 }),
      datum('weir', 'users', {}, { value: 2 }),
    ]);
    expect(res.stderr).to.include('aggregated histograms and summaries have no datum form');
    expect(res.stderr).to.match(/sink\s+cloud\s+received=7 sent=5 discarded=2/);
  });
});

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The daemon's config: one native_json stdin, four metrics sinks. */
function config(influxUrl: string, db: string, hecUrl: string, humioUrl: string, cloudUrl: string): string {
  return [
    '[sources.in]',
    'type = "stdin"',
    'decoding.codec = "native_json"',
    '',
    '[sinks.tsdb]',
    'type = "tsdb_metrics"',
    'inputs = ["in"]',
    `endpoint = "${influxUrl}"`,
    `database = "${db}"`,
    '',
    '[sinks.hec]',
    'type = "siem_hec_metrics"',
    'inputs = ["in"]',
    `endpoint = "${hecUrl}"`,
    `default_token = "${HEC_TOKEN}"`,
    'acknowledgements.query_interval = 1',
    '',
    '[sinks.logsvc]',
    'type = "logsvc_metrics"',
    'inputs = ["in"]',
    `endpoint = "${humioUrl}"`,
    `token = "${HUMIO_TOKEN}"`,
    '',
    '[sinks.cloud]',
    'type = "cloudw_monitor_metrics"',
    'inputs = ["in"]',
    `endpoint = "${cloudUrl}"`,
    'region = "us-east-1"',
    'default_namespace = "weir"',
    '',
  ].join('\n');
}

/** One native_json line per metric kind (two distributions: histogram and summary statistic), all at `time`. */
function metricLines(time: string): string[] {
  return [
    `{"metric":{"name":"requests","namespace":"web","tags":{"code":"200","host":"a"},"timestamp":"${time}","kind":"incremental","counter":{"value":3.0}}}`,
    `{"metric":{"name":"temp","tags":{"room":"lab"},"timestamp":"${time}","kind":"absolute","gauge":{"value":-1.5}}}`,
    `{"metric":{"name":"users","timestamp":"${time}","kind":"incremental","set":{"values":["bob","alice"]}}}`,
    `{"metric":{"name":"latency","tags":{"region":"eu"},"timestamp":"${time}","kind":"incremental","distribution":{"samples":[{"value":1.0,"rate":3},{"value":2.5,"rate":1}],"statistic":"histogram"}}}`,
    `{"metric":{"name":"sizes","timestamp":"${time}","kind":"incremental","distribution":{"samples":[{"value":0.25,"rate":2}],"statistic":"summary"}}}`,
    `{"metric":{"name":"duration","namespace":"app","timestamp":"${time}","kind":"absolute","aggregated_histogram":{"buckets":[{"upper_limit":0.005,"count":1},{"upper_limit":1.0,"count":4},{"upper_limit":"inf","count":7}],"count":7,"sum":12.75}}}`,
    `{"metric":{"name":"rpc","timestamp":"${time}","kind":"absolute","aggregated_summary":{"quantiles":[{"quantile":0.5,"value":3.0},{"quantile":0.99,"value":11.25}],"count":20,"sum":80.0}}}`,
  ];
}
