import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Event, type LogEvent, settleAll } from '../../../lib/event.js';
import { MetricsRegistry } from '../../../lib/telemetry/registry.js';
import { createBuffer } from '../../../lib/buffer/index.js';
import { componentContext } from '../../../lib/component-context.js';

const here = dirname(fileURLToPath(import.meta.url));
// runs from the sources (tsx) or from the compiled tree (dist/spec): the fixture sits beside this file
const script = join(here, 'fixtures', `crash-writer${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`);

const readerScript = join(here, 'fixtures', `crash-reader${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`);

function runChild(dataDir: string, type: string, n: number, file = script): Promise<{ signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file, dataDir, type, String(n)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (_code, signal) => resolve({ signal, stdout, stderr }));
  });
}

for (const type of ['disk', 'disk_v1']) {
  describe(`DiskBuffer (${type}) after a crash`, function () {
    this.timeout(20_000);
    it('keeps every event synced before a SIGKILL, in order', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'weir-crash-'));
      try {
        const n = 1000;
        const { signal, stdout, stderr } = await runChild(dataDir, type, n);
        expect(stdout, stderr).to.include('synced');
        expect(signal).to.equal('SIGKILL');
        const buf = await createBuffer(
          { type: type as 'disk', max_events: 500, max_size: 1 << 30, when_full: 'block' },
          componentContext({ id: 'out', kind: 'sink', type: 'test', registry: new MetricsRegistry({}), globals: { data_dir: dataDir } }),
        );
        const held = buf.length;
        expect(held).to.be.within(n, n + 100); // the unsynced tail may or may not have made it
        const got: Event[] = [];
        while (got.length < held) {
          const b = (await buf.pull(500))!;
          got.push(...b);
          settleAll(b, 'delivered');
        }
        const ns = got.map((e) => (e as LogEvent).fields.n);
        expect(ns).to.deep.equal(Array.from({ length: held }, (_, i) => i));
        await buf.dispose();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });

    it('keeps every event its sink had not settled before a SIGKILL, with a reader keeping up', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'weir-crash-'));
      try {
        const n = 4000;
        const { signal, stdout, stderr } = await runChild(dataDir, type, n, readerScript);
        expect(stdout, stderr).to.include(`synced ${n / 2}`);
        expect(signal).to.equal('SIGKILL');
        const buf = await createBuffer(
          { type: type as 'disk', max_events: 500, max_size: 1 << 30, when_full: 'block' },
          componentContext({ id: 'out', kind: 'sink', type: 'test', registry: new MetricsRegistry({}), globals: { data_dir: dataDir } }),
        );
        const got: Event[] = [];
        while (buf.length > 0) {
          const b = (await buf.pull(500))!;
          got.push(...b);
          settleAll(b, 'delivered');
        }
        const ns = got.map((e) => (e as LogEvent).fields.n as number);
        // settled ones may come back (at least once), the held ones must, all in order
        expect(ns.filter((x) => x >= n / 2)).to.deep.equal(Array.from({ length: n / 2 }, (_, i) => n / 2 + i));
        expect(ns).to.deep.equal([...ns].sort((a, b) => a - b));
        await buf.dispose();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}
