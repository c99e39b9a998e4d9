/**
 * `component_received_bytes_total` in the real daemon: every source counts the bytes it took in
 * (off a socket, a pipe, a request body, a scrape, its own generator), and the management API
 * answers `receivedBytesTotal` for each. One config runs one source of each type into a blackhole,
 * the test feeds every one of them, then asks the API.
 */
import { expect } from 'chai';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FluentClient } from '@fluent-org/logger';
import { freePort } from '../helpers/free-port.js';
import { until } from '../helpers/wait.js';
import { startWeir } from '../helpers/weir-process.js';
import { type EventdbPeer, startEventdbPeer } from '../peers/eventdb.js';
import { type Fauxqs, TEST_KEYS, startFauxqs } from '../peers/fauxqs.js';

/** The sources of the config, by id: one of each type that can run without outside services. */
const SOURCES = ['in_stdin', 'in_socket', 'in_demo_logs', 'in_internal_metrics', 'in_logfwd', 'in_opentelemetry', 'in_eventdb_metrics', 'in_cloudw_queue', 'in_journal'] as const;

type SourceNode = { componentId: string; componentType: string; metrics: { receivedBytesTotal: { receivedBytesTotal: number } | null } };

/** A journalctl stand-in: a systemd version, then one JSON record, then it follows forever. */
const FAKE_JOURNALCTL = `#!/bin/sh
if [ "$1" = "--version" ]; then echo "systemd 252 (252.22-1~deb12u1)"; exit 0; fi
echo '{"__CURSOR":"s=1;i=1","__REALTIME_TIMESTAMP":"1714557600000000","MESSAGE":"hello journal","_HOSTNAME":"h"}'
exec sleep 600
`;

/** Retries `send` while the listener is not up yet (the daemon binds during start). */
async function retrying(what: string, send: () => Promise<void>): Promise<void> {
  let last: unknown;
  for (let i = 0; i < 100; i++) {
    try {
      return await send();
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${what}: ${String(last)}`);
}

function sendTcp(port: number, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => s.end(text, () => resolve()));
    s.on('error', reject);
  });
}

describe('component_received_bytes_total through the management API', function () {
  this.timeout(120_000);
  let eventdb: EventdbPeer;
  let sqs: Fauxqs;
  before(async () => {
    eventdb = await startEventdbPeer({ id: 1, mem: 1, readBytes: 1, writtenBytes: 1, readOps: 1, writeOps: 1, freeMem: 1 });
    sqs = await startFauxqs();
  });
  after(async () => {
    await eventdb.close();
    await sqs.close();
  });

  it('every source reports a positive receivedBytesTotal once it took data in', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'weir-received-bytes-'));
    const [api, socketPort, logfwdPort, grpcPort, httpPort] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
    const journalctl = join(tmp, 'journalctl');
    writeFileSync(journalctl, FAKE_JOURNALCTL);
    chmodSync(journalctl, 0o755);
    const queue = await sqs.createQueue('received-bytes');
    await sqs.send(queue, ['hello queue']);
    const cfg = join(tmp, 'sources.toml');
    writeFileSync(
      cfg,
      [
        `data_dir = "${tmp}"`,
        '[api]',
        'enabled = true',
        `address = "127.0.0.1:${api}"`,
        '[sources.in_stdin]',
        'type = "stdin"',
        '[sources.in_socket]',
        'type = "socket"',
        'mode = "tcp"',
        `address = "127.0.0.1:${socketPort}"`,
        '[sources.in_demo_logs]',
        'type = "demo_logs"',
        'format = "shuffle"',
        'lines = ["hello demo"]',
        'count = 5',
        'interval = 0.01',
        '[sources.in_internal_metrics]',
        'type = "internal_metrics"',
        'scrape_interval_secs = 0.1',
        '[sources.in_logfwd]',
        'type = "logfwd"',
        `address = "127.0.0.1:${logfwdPort}"`,
        '[sources.in_opentelemetry]',
        'type = "opentelemetry"',
        `grpc.address = "127.0.0.1:${grpcPort}"`,
        `http.address = "127.0.0.1:${httpPort}"`,
        '[sources.in_eventdb_metrics]',
        'type = "eventdb_metrics"',
        `endpoint = "${eventdb.url}/stats"`,
        'scrape_interval_secs = 0.2',
        '[sources.in_cloudw_queue]',
        'type = "cloudw_queue"',
        `queue_url = "${queue}"`,
        'region = "us-east-1"',
        `endpoint = "${sqs.endpoint}"`,
        'poll_secs = 1',
        'client_concurrency = 1',
        '[sources.in_journal]',
        'type = "journal"',
        `journalctl_path = "${journalctl}"`,
        'current_boot_only = false',
        '[sinks.hole]',
        'type = "blackhole"',
        // opentelemetry routes logs through its named output
        `inputs = [${SOURCES.map((s) => (s === 'in_opentelemetry' ? '"in_opentelemetry.logs"' : `"${s}"`)).join(', ')}]`,
        'print_interval_secs = 0',
        '',
      ].join('\n'),
    );
    const env = { CLOUDW_ACCESS_KEY_ID: TEST_KEYS.access_key_id, CLOUDW_SECRET_ACCESS_KEY: TEST_KEYS.secret_access_key };
    const p = startWeir(['--config', cfg], { env });
    try {
      await until(() => p.stderr().includes('weir started') || p.child.exitCode !== null, 60_000, 'start');
      expect(p.child.exitCode, p.stderr()).to.equal(null);
      p.child.stdin!.write('hello stdin\n');
      await retrying('socket', () => sendTcp(socketPort, 'hello socket\n'));
      await retrying('logfwd', async () => {
        const fluent = new FluentClient('tag', { socket: { host: '127.0.0.1', port: logfwdPort } });
        try {
          await fluent.emit('x', { message: 'hello logfwd' });
        } finally {
          await fluent.shutdown();
        }
      });
      await retrying('opentelemetry', async () => {
        const body = { resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'hello otel' } }] }] }] };
        const res = await fetch(`http://127.0.0.1:${httpPort}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
      });

      const query = async (): Promise<SourceNode[]> => {
        const r = await fetch(`http://127.0.0.1:${api}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ sources(sort: [{field: COMPONENT_KEY}]) { nodes { componentId componentType metrics { receivedBytesTotal { receivedBytesTotal } } } } }' }),
        });
        const json = (await r.json()) as { data?: { sources: { nodes: SourceNode[] } }; errors?: unknown };
        if (json.data === undefined) throw new Error(`GraphQL errors: ${JSON.stringify(json.errors)}`);
        return json.data.sources.nodes;
      };
      // null: the source never created the counter
      const bytesOf = (nodes: SourceNode[]) => Object.fromEntries(nodes.map((n) => [n.componentId, n.metrics.receivedBytesTotal?.receivedBytesTotal ?? null]));
      let bytes: Record<string, number | null> = {};
      // a generous wait: the scrapes, the queue's poll and the listeners each take their own time
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        bytes = bytesOf(await query());
        if (SOURCES.every((s) => (bytes[s] ?? 0) > 0)) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(Object.keys(bytes).sort(), 'the API lists every source').to.deep.equal([...SOURCES].sort());
      const missing = SOURCES.filter((s) => !((bytes[s] ?? 0) > 0));
      expect(missing, `sources without received bytes: ${JSON.stringify(bytes)}`).to.deep.equal([]);
    } finally {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  });
});
