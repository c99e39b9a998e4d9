import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '../../../helpers/wait.js';
import { startWeir } from '../../../helpers/weir-process.js';
import { type HumioPeer, startHumio } from '../../../peers/humio.js';
import { TOKEN } from './harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-logsvc-daemon-'));

describe('connectors/sinks/logsvc_metrics: the daemon (compiled CLI)', function () {
  this.timeout(60_000);
  let humio: HumioPeer;
  afterEach(() => humio.close());

  it('internal_metrics -> logsvc_metrics: every metric type ingested as a log event, clean exit with nothing lost', async () => {
    humio = await startHumio();
    const cfg = join(tmp, 'logsvc.toml');
    writeFileSync(
      cfg,
      [
        '[sources.self]',
        'type = "internal_metrics"',
        'scrape_interval_secs = 0.2',
        '[sinks.logsvc]',
        'type = "logsvc_metrics"',
        'inputs = ["self"]',
        `endpoint = "${humio.url}"`,
        `token = "${TOKEN}"`,
        'event_type = "metrics"',
        'index = "weir"',
        'indexed_fields = ["#tags.component_kind"]',
        'compression = "gzip"',
        'batch.timeout_secs = 0.1',
        '',
      ].join('\n'),
    );
    const p = startWeir(['--config', cfg, '--require-healthy']);
    const kinds = () => new Set(humio.events.map((e) => Object.keys(e.event as object).find((k) => k === 'counter' || k === 'gauge' || k === 'aggregated_histogram')));
    try {
      await until(() => kinds().has('counter') && kinds().has('gauge') && kinds().has('aggregated_histogram'), 20_000, 'counters, gauges and histograms at the service');
      expect(humio.requests[0]!.path).to.equal('/services/collector/health/1.0');
      expect(humio.events.every((e) => e.repository === 'weir' && e.parser === 'metrics' && (e.event as { namespace: string }).namespace === 'weir')).to.equal(true);
      expect(humio.events.some((e) => e.tags['tags.component_kind'] === 'sink')).to.equal(true);
    } finally {
      p.child.kill('SIGINT');
    }
    const { code } = await p.exited;
    expect(code, p.stderr()).to.equal(0);
    expect(p.stderr()).to.include('0 events lost');
  });

  it('--require-healthy exits non-zero when the service has no HEC health path', async () => {
    humio = await startHumio({ hecHealth: false });
    const cfg = join(tmp, 'unhealthy.toml');
    writeFileSync(cfg, `[sources.self]\ntype = "internal_metrics"\n[sinks.logsvc]\ntype = "logsvc_metrics"\ninputs = ["self"]\nendpoint = "${humio.url}"\ntoken = "${TOKEN}"\n`);
    const p = startWeir(['--config', cfg, '--require-healthy']);
    const { code } = await p.exited;
    expect(code).to.equal(1);
    expect(p.stderr()).to.include('Healthcheck failed.').and.include('component_id=logsvc');
  });
});
