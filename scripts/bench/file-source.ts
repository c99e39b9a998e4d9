/**
 * Throughput of the file source reading one existing file into a subscriber that only counts:
 * `npx tsx scripts/bench/file-source.ts [MiB] [line bytes] [max_read_bytes]`. Prints MiB/s and events/s.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { componentContext, sourceContext } from '../../lib/component-context.js';
import { GateController } from '../../lib/gate.js';
import { LogRoot } from '../../lib/log.js';
import { MetricsRegistry } from '../../lib/telemetry/registry.js';
import { FileSourceConfig, fileSource } from '../../connectors/sources/file/index.js';

const mib = Number(process.argv[2] ?? 64);
const lineBytes = Number(process.argv[3] ?? 100);
const maxReadBytes = process.argv[4] !== undefined ? Number(process.argv[4]) : undefined;
const total = Math.floor((mib * 1024 * 1024) / lineBytes);
const dir = mkdtempSync(join(tmpdir(), 'weir-bench-file-'));
writeFileSync(join(dir, 'bench.log'), ('x'.repeat(lineBytes - 1) + '\n').repeat(total));

const registry = new MetricsRegistry({});
const log = new LogRoot('warn', { write: () => {} }).logger();
const ctx = sourceContext(componentContext({ id: 'bench', kind: 'source', type: 'file', registry, log }), { out: new GateController(true) });
const config = v.parse(FileSourceConfig, { type: 'file', include: [`${dir}/*.log`], data_dir: dir, ...(maxReadBytes !== undefined ? { max_read_bytes: maxReadBytes } : {}) });
let events = 0;
const start = process.hrtime.bigint();
const sub = fileSource.build(config, ctx).subscribe((batch) => {
  events += (batch as unknown[]).length;
  if (events >= total) {
    const secs = Number(process.hrtime.bigint() - start) / 1e9;
    console.log(`${mib} MiB, ${total} lines of ${lineBytes} B, max_read_bytes ${config.max_read_bytes}: ${(mib / secs).toFixed(1)} MiB/s, ${(total / secs / 1e6).toFixed(2)} M events/s`);
    sub.unsubscribe();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }
});
