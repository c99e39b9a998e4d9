/**
 * The four Prometheus components in one daemon, around the real Prometheus: weir's own metrics go
 * to the exporter, which Prometheus scrapes and remote-writes back into weir's remote-write source;
 * weir's scrape source reads the same exporter and its remote-write sink writes what it read into
 * Prometheus.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/free-port.js';
import { until } from '../helpers/wait.js';
import { startWeir } from '../helpers/weir-process.js';
import { sharedPrometheus } from '../peers/prometheus.js';

describe('integration: prometheus_exporter, prometheus_scrape and prometheus_remote_write in the daemon, around the real Prometheus', function () {
  this.timeout(120_000);

  it('exporter scraped by Prometheus, Prometheus remote-writing into weir, weir scraping and remote-writing into Prometheus; clean exit', async () => {
    const prom = await sharedPrometheus();
    const [exporterPort, receiverPort] = [await freePort(), await freePort()];
    const dir = mkdtempSync(join(tmpdir(), 'weir-prom-daemon-'));
    const cfg = join(dir, 'weir.toml');
    writeFileSync(
      cfg,
      [
        '[sources.self]',
        'type = "internal_metrics"',
        'scrape_interval_secs = 0.5',
        '[sinks.exporter]',
        'type = "prometheus_exporter"',
        'inputs = ["self"]',
        `address = "127.0.0.1:${exporterPort}"`,
        '[sources.scrape]',
        'type = "prometheus_scrape"',
        `endpoints = ["http://127.0.0.1:${exporterPort}/metrics"]`,
        'scrape_interval_secs = 1',
        'instance_tag = "scraped_from"',
        '[sinks.rw]',
        'type = "prometheus_remote_write"',
        'inputs = ["scrape"]',
        `endpoint = "${prom.url}/api/v1/write"`,
        'default_namespace = "loop"',
        `healthcheck.uri = "${prom.url}/-/healthy"`,
        'batch.timeout_secs = 0.5',
        '[sources.rwin]',
        'type = "prometheus_remote_write"',
        `address = "127.0.0.1:${receiverPort}"`,
        'path = "/api/v1/write"',
        '[sinks.out]',
        'type = "console"',
        'inputs = ["rwin"]',
        'encoding.codec = "json"',
        '',
      ].join('\n'),
    );
    const p = startWeir(['--config', cfg, '--require-healthy']);
    try {
      await prom.configure(
        [
          'global:',
          '  scrape_interval: 1s',
          'scrape_configs:',
          '  - job_name: weir_daemon',
          `    static_configs: [{ targets: ["127.0.0.1:${exporterPort}"] }]`,
          'remote_write:',
          `  - url: http://127.0.0.1:${receiverPort}/api/v1/write`,
          '    queue_config: { batch_send_deadline: 1s, min_backoff: 100ms, max_backoff: 1s }',
          '    write_relabel_configs: [{ source_labels: [job], regex: weir_daemon, action: keep }]',
          '',
        ].join('\n'),
      );
      // Prometheus scraped the exporter: the sink's own sent counter, as a counter
      const sent = await prom.waitFor('weir_component_sent_events_total{job="weir_daemon",component_id="exporter"}', (r) => r.length > 0 && r[0]!.value > 0);
      expect(sent[0]!.metric).to.include({ component_kind: 'sink', component_type: 'prometheus_exporter' });
      // weir scraped its own exporter and wrote what it read into Prometheus
      const looped = await prom.waitFor(`loop_weir_component_received_events_total{component_id="self",scraped_from="127.0.0.1:${exporterPort}"}`, (r) => r.length > 0 && r[0]!.value > 0);
      expect(looped).to.have.length(1);
      // Prometheus wrote what it scraped back into weir
      await until(() => /"name":"weir_component_sent_events_total".*"job":"weir_daemon"/.test(p.stdout()), 60_000, 'remote-written metrics on stdout');
    } finally {
      await prom.configure('global:\n  scrape_interval: 1s\n');
      p.child.kill('SIGINT');
    }
    const { code } = await p.exited;
    expect(code, p.stderr()).to.equal(0);
  });
});
