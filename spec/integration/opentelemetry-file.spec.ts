import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exporterFor, sendLogs } from '../connectors/sources/opentelemetry/exporters.js';
import { freePort } from '../helpers/free-port.js';
import { until } from '../helpers/wait.js';
import { startWeir } from '../helpers/weir-process.js';

describe('opentelemetry -> file through the daemon, acknowledgements on', function () {
  this.timeout(120_000);

  it('every record of the official exporters arrives exactly once across a blocked sink that recovers', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'weir-otel-'));
    const ports = { grpcPort: await freePort(), httpPort: await freePort() };
    // the file sink writes into a FIFO: opening it blocks until the test reads, so the sink
    // stalls, its memory buffer fills (block), and the source holds the requests until it drains
    const fifo = join(tmp, 'out.fifo');
    execFileSync('mkfifo', [fifo]);
    const metrics = join(tmp, 'metrics.json');
    const cfg = join(tmp, 'pipe.toml');
    writeFileSync(
      cfg,
      [
        `data_dir = "${tmp}"`,
        '[sources.otel]',
        'type = "opentelemetry"',
        `grpc.address = "127.0.0.1:${ports.grpcPort}"`,
        `http.address = "127.0.0.1:${ports.httpPort}"`,
        '[sinks.out]',
        'type = "file"',
        'inputs = ["otel.logs"]',
        `path = "${fifo}"`,
        'encoding.codec = "json"',
        'acknowledgements.enabled = true',
        'buffer.type = "memory"',
        'buffer.max_events = 100',
        'buffer.when_full = "block"',
        '[sources.metrics]',
        'type = "internal_metrics"',
        'scrape_interval_secs = 0.05',
        '[sinks.metrics_file]',
        'type = "file"',
        'inputs = ["metrics"]',
        `path = "${metrics}"`,
        'encoding.codec = "json"',
        '',
      ].join('\n'),
    );
    const p = startWeir(['--config', cfg]);
    try {
      await until(() => (p.stderr() + p.stdout()).match(/Listening/g)?.length === 2, 20_000, 'both listeners');
      const N = 2000;
      // a long export deadline: an export waits for delivery, and a timed-out export would be sent again
      const opts = { timeoutMillis: 60_000 };
      const records = (prefix: string) => Array.from({ length: N }, (_, i) => ({ body: `${prefix}-${i}`, attributes: { i } }));
      let exported = 0;
      const sent = [
        sendLogs(exporterFor('http-proto', ports, opts), records('proto'), { batch: true }).then(() => void exported++),
        sendLogs(exporterFor('http-json-gzip', ports, opts), records('json'), { batch: true }).then(() => void exported++),
      ];
      // the sink is stalled: the source takes in a buffer's worth and answers none of it
      await until(() => receivedByOtel(metrics) >= 100, 30_000, 'the buffer to fill');
      expect(exported, 'answered before delivery').to.equal(0);
      const lines: string[] = [];
      let partial = '';
      const reader = createReadStream(fifo, { encoding: 'utf8' });
      reader.on('data', (d: string | Buffer) => {
        const parts = (partial + d.toString()).split('\n');
        partial = parts.pop()!;
        lines.push(...parts);
      });
      await Promise.all(sent);
      // the JavaScript gRPC exporter does not retry, so it sends once the sink flows again
      await sendLogs(exporterFor('grpc', ports, opts), records('grpc'), { batch: true });
      await until(() => lines.length >= 3 * N, 30_000, 'every line read');
      const bodies = lines.map((l) => (JSON.parse(l) as { message: string }).message);
      const want = ['proto', 'json', 'grpc'].flatMap((k) => Array.from({ length: N }, (_, i) => `${k}-${i}`));
      expect(bodies.length, 'no duplicates').to.equal(3 * N);
      expect([...bodies].sort()).to.deep.equal([...want].sort());
      const first = JSON.parse(lines.find((l) => l.includes('"proto-0"'))!) as Record<string, unknown>;
      expect(Object.keys(first)).to.deep.equal(['message', 'scope', 'resources', 'attributes', 'severity_number', 'dropped_attributes_count', 'observed_timestamp', 'timestamp', 'source_type'].filter((k) => k in first));
      expect(first.source_type).to.equal('opentelemetry');
      expect(first.attributes).to.deep.equal({ i: 0 });
      expect(p.stderr()).to.not.match(/ERROR/);
      reader.destroy();
    } finally {
      p.child.kill('SIGKILL');
      await p.exited;
    }
  });
});

/** The latest component_received_events_total of the opentelemetry source in the metrics file. */
function receivedByOtel(path: string): number {
  if (!existsSync(path)) return 0;
  let n = 0;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.includes('"component_received_events_total"') || !line.includes('"component_id":"otel"')) continue;
    const m = JSON.parse(line) as { counter?: { value: number } };
    if (m.counter !== undefined) n = Math.max(n, m.counter.value);
  }
  return n;
}
