/**
 * The host pipeline a Vector agent runs by default, end to end: `host_metrics` and
 * `internal_metrics` through `aggregate` into `prometheus_exporter`, scraped by the real Prometheus;
 * the values are read back through its query API.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/free-port.js';
import { startWeir } from '../helpers/weir-process.js';
import { sharedPrometheus } from '../peers/prometheus.js';

describe('integration: host_metrics + internal_metrics -> aggregate -> prometheus_exporter, scraped by Prometheus', function () {
  this.timeout(120_000);

  it('Prometheus reads the host\'s memory total exactly, its load, and weir\'s own counters through the aggregate', async () => {
    const prom = await sharedPrometheus();
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'weir-host-prom-'));
    const cfg = join(dir, 'weir.toml');
    writeFileSync(
      cfg,
      [
        '[sources.host]',
        'type = "host_metrics"',
        'collectors = ["memory", "load", "cpu"]',
        'scrape_interval_secs = 1',
        '[sources.self]',
        'type = "internal_metrics"',
        'scrape_interval_secs = 1',
        '[transforms.every_2s]',
        'type = "aggregate"',
        'inputs = ["host", "self"]',
        'interval_ms = 2000',
        '[sinks.prometheus]',
        'type = "prometheus_exporter"',
        'inputs = ["every_2s"]',
        `address = "127.0.0.1:${port}"`,
        '',
      ].join('\n'),
    );
    const p = startWeir(['--config', cfg]);
    try {
      await prom.configure(['global:', '  scrape_interval: 1s', 'scrape_configs:', '  - job_name: weir_host', `    static_configs: [{ targets: ["127.0.0.1:${port}"] }]`, ''].join('\n'));
      const kib = Number(/^MemTotal:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'))![1]);
      const mem = await prom.waitFor('host_memory_total_bytes{job="weir_host"}', (r) => r.length === 1);
      expect(mem[0]!.value).to.equal(kib * 1024);
      const load = await prom.waitFor('host_load1{job="weir_host"}', (r) => r.length === 1);
      expect(load[0]!.value).to.be.at.least(0);
      const cpu = await prom.waitFor('sum(host_cpu_seconds_total{job="weir_host"})', (r) => r.length === 1 && r[0]!.value > 0);
      expect(cpu[0]!.value).to.be.greaterThan(0);
      // weir's own counter of what the aggregate sent on, through the aggregate itself
      const sent = await prom.waitFor('weir_component_sent_events_total{job="weir_host",component_id="every_2s"}', (r) => r.length === 1 && r[0]!.value > 0);
      expect(sent[0]!.metric).to.include({ component_type: 'aggregate' });
    } finally {
      await prom.configure('global:\n  scrape_interval: 1s\n');
      p.child.kill('SIGINT');
      rmSync(dir, { recursive: true, force: true });
    }
    const { code } = await p.exited;
    expect(code, p.stderr()).to.equal(0);
  });
});
