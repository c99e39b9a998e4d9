/**
 * `socket(tcp) -> log_to_metric -> tsdb_metrics` against a real InfluxDB 1.x (started here on free
 * loopback ports, in its own process, like the sender). The socket source decodes the sender's
 * RFC 5424 lines; log_to_metric makes two metrics per line: a counter tagged with host and app (85
 * series) and a histogram of the procid per app. Prints log events/s, metric events/s, requests
 * and this process's peak RSS.
 * Usage: node dist/scripts/bench/tsdb-metrics.js [MiB=64] [batch.max_events=20] [request.concurrency=adaptive]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalog } from '../../connectors/index.js';
import { configFromObject } from '../../lib/config/load.js';
import { LogRoot } from '../../lib/log.js';
import { Topology } from '../../lib/topology/topology.js';
import { startInfluxdb1 } from '../../spec/peers/influxdb1.js';
import { firstLine, freePort, listening, script } from './harness.js';

const mib = Number(process.argv[2] ?? 64);
const maxEvents = Number(process.argv[3] ?? 20);
const concurrency = process.argv[4] === undefined || process.argv[4] === 'adaptive' ? 'adaptive' : Number(process.argv[4]);
const METRICS_PER_LINE = 2;

const influx = await startInfluxdb1();
await influx.createDatabase('bench');
const sender = spawn(process.execPath, [...script('tcp-send'), String(mib)], { stdio: ['pipe', 'pipe', 'inherit'] });
process.on('exit', () => sender.kill());
const lines = Number(await firstLine(sender, 'READY'));

const port = await freePort();
const dir = mkdtempSync(join(tmpdir(), 'weir-bench-tsdb-'));
const config = configFromObject(
  {
    data_dir: dir,
    sources: { in: { type: 'socket', mode: 'tcp', address: `127.0.0.1:${port}`, decoding: { codec: 'syslog' } } },
    transforms: {
      metrics: {
        type: 'log_to_metric',
        inputs: ['in'],
        metrics: [
          { type: 'counter', field: 'message', name: 'lines', namespace: 'bench', tags: { host: '{{ hostname }}', app: '{{ appname }}' } },
          { type: 'histogram', field: 'procid', name: 'procid', namespace: 'bench', tags: { app: '{{ appname }}' } },
        ],
      },
    },
    sinks: {
      tsdb: { type: 'tsdb_metrics', inputs: ['metrics'], endpoint: influx.url, database: 'bench', batch: { max_events: maxEvents }, request: { concurrency } },
    },
  },
  catalog,
);
const topo = new Topology({ log: new LogRoot('warn') });
await topo.start(config);
await listening(port);

const expected = lines * METRICS_PER_LINE;
const t0 = performance.now();
sender.stdin!.write(`go ${port}\n`);
const sum = (name: string, tags: Record<string, string> = {}) => topo.registry.sum(name, { component_id: 'tsdb', ...tags });
await new Promise<void>((resolve) => {
  const timer = setInterval(() => {
    const settled = sum('component_sent_events_total') + sum('component_discarded_events_total');
    if (settled >= expected) {
      clearInterval(timer);
      resolve();
    }
  }, 5);
});
const seconds = (performance.now() - t0) / 1000;
const result = {
  bench: 'tsdb-metrics',
  mib,
  batch_max_events: maxEvents,
  concurrency,
  log_events: lines,
  metric_events: sum('component_sent_events_total'),
  rejected: sum('component_discarded_events_total'),
  request_errors: sum('component_errors_total'),
  seconds: Number(seconds.toFixed(3)),
  log_events_per_sec: Math.round(lines / seconds),
  metric_events_per_sec: Math.round(expected / seconds),
  peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
  points_stored: await influx.query('SELECT count(value) FROM "bench.lines"', { db: 'bench' }).then((r) => r[0]?.series?.[0]?.values[0]?.[1] ?? 0),
  node: process.version,
};
console.log(JSON.stringify(result));
await topo.stop(5_000);
await influx.stop();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
