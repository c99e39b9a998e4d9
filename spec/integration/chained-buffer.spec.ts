/**
 * A chained buffer through the real daemon: socket(tcp) -> http with a memory stage that
 * overflows into a disk stage, while the destination is down. The daemon reports its own
 * metrics (internal_metrics -> a second http sink -> a collector here, per `stage`), so the test
 * sees each stage fill, then brings the destination back and counts every id it receives.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/free-port.js';
import { idConsumer } from '../helpers/id-consumer.js';
import { until } from '../helpers/wait.js';
import { type WeirProcess, startWeir } from '../helpers/weir-process.js';

/** Vector's minimum disk `buffer.max_size`. */
const MIN_MAX_SIZE = 268_435_488;
const MEMORY_EVENTS = 200;
const N = 3_000;

/** Latest value of each buffer metric series of sink `out`, by name and stage. */
async function stageMetrics(): Promise<{ url: string; value(name: string, stage: string): number | undefined; close(): Promise<void> }> {
  const latest = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      try {
        for (const raw of JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown[]) {
          const m = raw as { name?: string; tags?: Record<string, string>; gauge?: { value: number }; counter?: { value: number } };
          const v = m.gauge?.value ?? m.counter?.value;
          if (m.name?.startsWith('buffer_') && m.tags?.component_id === 'out' && typeof v === 'number') latest.set(`${m.name}\n${m.tags.stage}`, v);
        }
      } catch {
        // not metrics: ignored
      }
      res.writeHead(200);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`,
    value: (name, stage) => latest.get(`${name}\n${stage}`),
    close: () => new Promise((r) => server.close(() => r())),
  };
}

describe('chained buffer through the daemon', function () {
  this.timeout(120_000);
  let weir: WeirProcess | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    if (weir && weir.child.exitCode === null && weir.child.signalCode === null) {
      weir.child.kill('SIGKILL');
      await weir.exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a sink that is down takes more than its memory stage holds, then delivers every event exactly once', async () => {
    dir = mkdtempSync(join(tmpdir(), 'weir-chain-'));
    const port = await freePort();
    const consumer = idConsumer(await freePort(), N);
    const metrics = await stageMetrics();
    const cfg = join(dir, 'weir.toml');
    writeFileSync(
      cfg,
      `data_dir = "${dir}"
[sources.in]
type = "socket"
mode = "tcp"
address = "127.0.0.1:${port}"
[sources.self]
type = "internal_metrics"
scrape_interval_secs = 0.1
[sinks.out]
type = "http"
inputs = ["in"]
uri = "${consumer.url}"
encoding.codec = "text"
healthcheck.enabled = false
batch.max_events = 100
batch.timeout_secs = 0.1
request.retry_initial_backoff_secs = 1
request.retry_max_duration_secs = 1
buffer = [{ type = "memory", max_events = ${MEMORY_EVENTS}, when_full = "overflow" }, { type = "disk", max_size = ${MIN_MAX_SIZE}, when_full = "block" }]
[sinks.self_out]
type = "http"
inputs = ["self"]
uri = "${metrics.url}"
encoding.codec = "json"
healthcheck.enabled = false
batch.timeout_secs = 0.05
`,
    );
    try {
      weir = startWeir(['--config', cfg]);
      const w = weir;
      await until(() => w.child.exitCode !== null || metrics.value('buffer_events', '1') !== undefined, 30_000, 'weir to report both buffer stages').catch((err: Error) => {
        throw new Error(`${err.message}\n${w.stderr()}`);
      });
      expect(w.child.exitCode, w.stderr()).to.equal(null);

      const sock = connect(port, '127.0.0.1');
      await new Promise<void>((resolve, reject) => sock.once('connect', resolve).once('error', reject));
      let text = '';
      for (let id = 0; id < N; id++) text += `${id} event-payload\n`;
      await new Promise<void>((resolve, reject) => sock.end(text, () => resolve()).once('error', reject));

      const received = () => (metrics.value('buffer_received_events_total', '0') ?? 0) + (metrics.value('buffer_received_events_total', '1') ?? 0);
      await until(() => received() === N, 30_000, 'the daemon to buffer every event');
      // the memory stage took what it holds; the rest overflowed to disk instead of blocking the source
      const inMemory = metrics.value('buffer_received_events_total', '0')!;
      expect(inMemory).to.be.at.least(MEMORY_EVENTS).and.below(N);
      expect(metrics.value('buffer_received_events_total', '1')).to.equal(N - inMemory);
      expect(metrics.value('buffer_events', '1')).to.be.greaterThan(0);
      expect(metrics.value('buffer_discarded_events_total', '1') ?? 0).to.equal(0);
      expect(consumer.received).to.equal(0);

      await consumer.up();
      await until(() => consumer.counts.every((c) => c > 0), 60_000, 'every id to arrive');
      // both stages empty: nothing is still to be sent, so a duplicate would already show
      await until(() => metrics.value('buffer_events', '0') === 0 && metrics.value('buffer_events', '1') === 0, 30_000, 'both stages to empty');
      expect(consumer.counts.filter((c) => c !== 1).length, 'ids not received exactly once').to.equal(0);
      expect(consumer.unknown).to.equal(0);
      expect(metrics.value('buffer_sent_events_total', '0')! + metrics.value('buffer_sent_events_total', '1')!).to.equal(N);
    } finally {
      await consumer.down();
      await metrics.close();
    }
  });
});
