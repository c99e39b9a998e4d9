import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { createReadStream, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FluentClient } from '@fluent-org/logger';
import { freePort } from '../helpers/free-port.js';
import { until } from '../helpers/wait.js';
import { startWeir } from '../helpers/weir-process.js';

const require = createRequire(import.meta.url);
const fluentLogger = require('fluent-logger') as {
  createFluentSender(tag: string, opts: Record<string, unknown>): {
    emit(label: string, record: object, time?: unknown, cb?: (err?: Error) => void): void;
    end(): void;
    on(ev: string, cb: (err: Error) => void): void;
  };
};

describe('logfwd -> file through the daemon, acknowledgements on', function () {
  this.timeout(120_000);

  it('every record of both Node clients arrives exactly once across a blocked sink that recovers, each acknowledged only after', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'weir-logfwd-'));
    const port = await freePort();
    // the file sink writes into a FIFO: opening it blocks until the test reads, so the sink
    // stalls, its memory buffer fills (block), and the source stops reading its connections
    const fifo = join(tmp, 'out.fifo');
    execFileSync('mkfifo', [fifo]);
    const metrics = join(tmp, 'metrics.json');
    const cfg = join(tmp, 'pipe.toml');
    writeFileSync(
      cfg,
      [
        `data_dir = "${tmp}"`,
        '[sources.in]',
        'type = "logfwd"',
        `address = "127.0.0.1:${port}"`,
        '[sinks.out]',
        'type = "file"',
        'inputs = ["in"]',
        `path = "${fifo}"`,
        'encoding.codec = "json"',
        'acknowledgements.enabled = true',
        'buffer.type = "memory"',
        'buffer.max_events = 100',
        'buffer.when_full = "block"',
        // the source's received count shows when the stalled sink's buffer has filled
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
      await until(() => /Listening/.test(p.stderr() + p.stdout()), 20_000, 'listening');
      const N = 3000;
      let acked = 0;
      const org = new FluentClient('org', { socket: { host: '127.0.0.1', port }, eventMode: 'Forward', ack: { ackTimeout: 60_000 } });
      const orgSent = Array.from({ length: N }, (_, i) => client(org, i).then(() => void acked++));
      const sender = fluentLogger.createFluentSender('fl', { host: '127.0.0.1', port, eventMode: 'PackedForward', requireAckResponse: true, ackResponseTimeout: 60_000, flushInterval: 5 });
      sender.on('error', () => {});
      const flSent = Array.from(
        { length: N },
        (_, i) => new Promise<void>((res, rej) => sender.emit('x', { id: `fl-${i}` }, 1714557600, (err) => (err ? rej(err) : (acked++, res())))),
      );
      // the sink is stalled: the source takes in at least a buffer's worth, and acknowledges none
      await until(() => receivedByIn(metrics) >= 100, 30_000, 'the buffer to fill');
      expect(acked, 'acknowledged before delivery').to.equal(0);
      const lines: string[] = [];
      let partial = '';
      const reader = createReadStream(fifo, { encoding: 'utf8' });
      reader.on('data', (d: string | Buffer) => {
        const text = partial + d.toString();
        const parts = text.split('\n');
        partial = parts.pop()!;
        lines.push(...parts);
      });
      await Promise.all([...orgSent, ...flSent]);
      await until(() => lines.length >= 2 * N, 30_000, 'every line read');
      await org.shutdown();
      sender.end();
      const ids = lines.map((l) => (JSON.parse(l) as { id: string }).id);
      const want = [...Array.from({ length: N }, (_, i) => `org-${i}`), ...Array.from({ length: N }, (_, i) => `fl-${i}`)];
      expect(ids.length, 'no duplicates').to.equal(2 * N);
      expect([...ids].sort()).to.deep.equal([...want].sort());
      expect(JSON.parse(lines.find((l) => l.includes('"fl-0"'))!)).to.deep.equal({ host: '127.0.0.1', id: 'fl-0', source_type: 'logfwd', tag: 'fl.x', timestamp: '2024-05-01T10:00:00Z' });
      reader.destroy();
    } finally {
      p.child.kill('SIGKILL');
      await p.exited;
    }
  });
});

/** The latest component_received_events_total of the logfwd source in the metrics file. */
function receivedByIn(path: string): number {
  if (!existsSync(path)) return 0;
  let n = 0;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.includes('"component_received_events_total"') || !line.includes('"component_id":"in"')) continue;
    const m = JSON.parse(line) as { counter?: { value: number } };
    if (m.counter !== undefined) n = Math.max(n, m.counter.value);
  }
  return n;
}

function client(c: FluentClient, i: number): Promise<void> {
  return c.emit('y', { id: `org-${i}` }, 1714557600_000);
}
