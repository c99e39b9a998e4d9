import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../helpers/free-port.js';
import { until } from '../../../helpers/wait.js';
import { startWeir } from '../../../helpers/weir-process.js';
import { type HecPeer, startHec } from '../../../peers/hec.js';
import { TOKEN } from './harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'weir-siem-daemon-'));

describe('connectors/sinks/siem_hec_metrics: the daemon (compiled CLI)', function () {
  this.timeout(60_000);
  let hec: HecPeer;
  beforeEach(async () => {
    hec = await startHec();
  });
  afterEach(() => hec.close());

  it('internal_metrics (counters and gauges) -> siem_hec_metrics: indexed, acknowledged, clean exit with nothing lost', async () => {
    const cfg = join(tmp, 'hec.toml');
    writeFileSync(
      cfg,
      [
        '[sources.self]',
        'type = "internal_metrics"',
        'scrape_interval_secs = 0.2',
        '[transforms.scalars]',
        'type = "filter"',
        'inputs = ["self"]',
        'condition = \'.type == "counter" || .type == "gauge"\'',
        '[sinks.hec]',
        'type = "siem_hec_metrics"',
        'inputs = ["scalars"]',
        `endpoint = "${hec.url}"`,
        `default_token = "${TOKEN}"`,
        'default_namespace = "unused"',
        'index = "metrics"',
        'compression = "gzip"',
        'batch.timeout_secs = 0.1',
        'acknowledgements.enabled = true',
        'acknowledgements.query_interval = 1',
        '',
      ].join('\n'),
    );
    const p = startWeir(['--config', cfg, '--require-healthy']);
    try {
      await until(() => hec.ackQueries.length > 0 && hec.metrics.some((m) => m.name === 'weir.component_sent_events_total' && m.dimensions.component_id === 'hec'), 20_000, 'acknowledged metrics at the collector');
      expect(hec.requests[0]!.path).to.equal('/services/collector/health/1.0');
      expect(hec.droppedMetrics).to.deep.equal([]);
      expect(hec.metrics.every((m) => m.index === 'metrics' && m.name.startsWith('weir.'))).to.equal(true);
      const channels = new Set(hec.events.map((e) => e.channel));
      expect(channels.size).to.equal(1);
    } finally {
      p.child.kill('SIGINT');
    }
    const { code } = await p.exited;
    expect(code, p.stderr()).to.equal(0);
    expect(p.stderr()).to.include('0 events lost');
  });

  it('--require-healthy exits non-zero when nothing answers the health check', async () => {
    const port = await freePort();
    const cfg = join(tmp, 'unhealthy.toml');
    writeFileSync(cfg, `[sources.self]\ntype = "internal_metrics"\n[sinks.hec]\ntype = "siem_hec_metrics"\ninputs = ["self"]\nendpoint = "http://127.0.0.1:${port}"\ndefault_token = "t"\n`);
    const p = startWeir(['--config', cfg, '--require-healthy']);
    const { code } = await p.exited;
    expect(code).to.equal(1);
    expect(p.stderr()).to.include('Healthcheck failed.').and.include('component_id=hec');
  });

  it('--require-healthy exits non-zero when the collector reports full queues', async () => {
    hec.setHealthy(false);
    const cfg = join(tmp, 'busy.toml');
    writeFileSync(cfg, `[sources.self]\ntype = "internal_metrics"\n[sinks.hec]\ntype = "siem_hec_metrics"\ninputs = ["self"]\nendpoint = "${hec.url}"\ndefault_token = "${TOKEN}"\n`);
    const p = startWeir(['--config', cfg, '--require-healthy']);
    const { code } = await p.exited;
    expect(code).to.equal(1);
    expect(p.stderr()).to.include('queues are full');
  });
});
