/**
 * `opentelemetry(http protobuf) -> blackhole` through the real daemon:
 * `node dist/scripts/bench/otlp.js [requests] [records per request] [concurrency]`.
 * Request bodies are encoded once, before timing, from the official OTLP protos (records of about
 * 200 bytes: a 120-byte body, three attributes, severity, trace and span ids), then posted over
 * keep-alive connections. Events/s and MiB/s (request body bytes) are measured from the first post
 * to the last 200; the peak RSS is the daemon's own (VmHWM).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { otlpLogsProto } from '../../connectors/sources/opentelemetry/proto.js';
import { freePort, postAll } from './harness.js';

const requests = Number(process.argv[2] ?? 2000);
const perRequest = Number(process.argv[3] ?? 500);
const concurrency = Number(process.argv[4] ?? 4);
const here = dirname(fileURLToPath(import.meta.url));
// compiled: dist/scripts/bench; through tsx: scripts/bench
const repo = resolve(here, here.includes('/dist/') ? '../../..' : '../..');

/** Distinct bodies so no layer can cache one answer. */
function bodies(): Buffer[] {
  const proto = otlpLogsProto();
  const out: Buffer[] = [];
  const variants = 16;
  for (let v = 0; v < variants; v++) {
    const logRecords = Array.from({ length: perRequest }, (_, i) => ({
      timeUnixNano: String(1_700_000_000_000_000_000n + BigInt(v * perRequest + i)),
      severityNumber: 9,
      severityText: 'INFO',
      body: { stringValue: `request ${v} record ${i} `.padEnd(120, 'x') },
      attributes: [
        { key: 'http.method', value: { stringValue: 'GET' } },
        { key: 'http.status_code', value: { intValue: 200 } },
        { key: 'duration', value: { doubleValue: 0.25 } },
      ],
      traceId: Buffer.from('5b8efff798038103d269b633813fc60c', 'hex'),
      spanId: Buffer.from('eee19b7ec3c1b174', 'hex'),
    }));
    const req = { resourceLogs: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bench' } }] }, scopeLogs: [{ scope: { name: 'bench' }, logRecords }] }] };
    out.push(Buffer.from(proto.request.encode(proto.request.fromObject(req)).finish()));
  }
  return out;
}

async function main(): Promise<void> {
  const payloads = bodies();
  const [grpcPort, httpPort] = [await freePort(), await freePort()];
  const tmp = mkdtempSync(join(tmpdir(), 'weir-bench-otlp-'));
  const cfg = join(tmp, 'bench.toml');
  writeFileSync(
    cfg,
    `data_dir = "${tmp}"\n[sources.otel]\ntype = "opentelemetry"\ngrpc.address = "127.0.0.1:${grpcPort}"\nhttp.address = "127.0.0.1:${httpPort}"\n` +
      `[sinks.hole]\ntype = "blackhole"\ninputs = ["otel.logs"]\nprint_interval_secs = 0\n`,
  );
  const child = spawn(process.execPath, [join(repo, 'bin/weir'), '--config', cfg], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (d: Buffer) => (log += d));
  child.stderr!.on('data', (d: Buffer) => (log += d));
  while ((log.match(/Listening/g) ?? []).length < 2) {
    if (child.exitCode !== null) throw new Error(`weir exited: ${log}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const { secs, bytes, retried } = await postAll({ port: httpPort, path: '/v1/logs', contentType: 'application/x-protobuf' }, payloads, requests, concurrency);
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const hwmKb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  child.kill('SIGKILL');
  const events = requests * perRequest;
  console.log(
    `opentelemetry(http protobuf) -> blackhole: ${requests} requests x ${perRequest} records, concurrency ${concurrency}: ` +
      `${Math.round(events / secs).toLocaleString('en-US')} events/s, ${(bytes / secs / 1048576).toFixed(1)} MiB/s, ` +
      `peak RSS ${Math.round(hwmKb / 1024)} MiB (${(bytes / events).toFixed(0)} wire bytes/record, ${retried} retried after 503)`,
  );
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
