import type { S3Client } from '@aws-sdk/client-s3';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runThreaded } from '../../helpers/threaded-run.js';
import { type GcsPeer, startGcs } from '../../peers/gcs.js';
import { type GoogleTokenPeer, generateServiceAccount, startGoogleTokenPeer } from '../../peers/google-token.js';
import { type S3Peer, S3RVER_CREDENTIALS, startS3 } from '../../peers/s3.js';
import { BUCKET, readClient, readObjects } from '../sinks/cloudw_object_storage/harness.js';

/** The sink's counters compared across thread counts. */
const SINK_COUNTERS = ['component_received_events_total', 'component_sent_events_total', 'component_sent_event_bytes_total', 'component_errors_total', 'component_discarded_events_total'];

/** Every 7th line has no tenant: its key prefix does not render and the sink refuses it alone. */
const LINES = Array.from({ length: 5_000 }, (_, i) => (i % 7 === 3 ? `n=${i}` : `tenant=t${i % 3} n=${i} say="h\u00e9llo ${i}"`));
const REFUSED = LINES.filter((l) => !l.startsWith('tenant')).length;

interface Run {
  /** Records by object key prefix (run and day left out), in `n` order. */
  readonly objects: Map<string, unknown[]>;
  readonly totals: Record<string, number>;
  readonly recycled: number;
}

/**
 * Runs `socket -> remap(parse_key_value) -> <sink>` with `threads`, the sink's objects under
 * `run<threads>/{{ tenant }}/date=%F/`, and reads back what it wrote; with `plain`, `socket -> <sink>`
 * under `plain<threads>/date=%F/` (a key of the timestamp alone: lines copied as they are).
 */
async function run(threads: number, sink: Record<string, unknown>, stored: (prefix: string) => Promise<{ key: string; body: string }[]>, plain = false): Promise<Run> {
  const topology = await runThreaded(
    threads,
    (address) => ({
      sources: { in: { type: 'socket', mode: 'tcp', address } },
      ...(plain ? {} : { transforms: { kv: { type: 'remap', inputs: ['in'], source: '. = merge(., parse_key_value!(.message))' } } }),
      sinks: {
        out: {
          ...sink,
          inputs: [plain ? 'in' : 'kv'],
          key_prefix: plain ? `plain${threads}/date=%F/` : `run${threads}/{{ tenant }}/date=%F/`,
          // the client's port differs from run to run
          encoding: { codec: 'ndjson', except_fields: ['timestamp', 'host', 'port'] },
          batch: { max_events: 400 },
          healthcheck: { enabled: false },
        },
      },
    }),
    LINES,
    // every event at the sink: stopping then flushes the last batch of every prefix
    (sum) => sum('component_received_events_total', 'out') >= LINES.length,
  );
  const totals: Record<string, number> = {};
  for (const c of SINK_COUNTERS) totals[c] = topology.registry.sum(c, { component_id: 'out' });
  const objects = new Map<string, unknown[]>();
  const top = `${plain ? 'plain' : 'run'}${threads}/`;
  for (const o of await stored(top)) {
    // the prefix without the run and the day (a run may cross midnight)
    const prefix = o.key.slice(top.length).replace(/date=\d{4}-\d{2}-\d{2}\/.*$/, 'date=D/');
    objects.set(prefix, [...(objects.get(prefix) ?? []), ...o.body.split('\n').map((l) => JSON.parse(l) as unknown)]);
  }
  const order = (r: unknown) => (r as { n?: string }).n?.padStart(8, '0') ?? (r as { message: string }).message;
  for (const records of objects.values()) records.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
  return { objects, totals, recycled: topology.workerPool?.recycled ?? 0 };
}

/** What both thread counts must agree on, and what --threads 1 must write. */
function expectSame(one: Run, two: Run): void {
  expect([...one.objects.keys()].sort()).to.deep.equal(['t0/date=D/', 't1/date=D/', 't2/date=D/']);
  expect(one.objects.get('t1/date=D/')![0]).to.deep.equal({ message: 'tenant=t1 n=1 say="h\u00e9llo 1"', n: '1', say: 'h\u00e9llo 1', source_type: 'socket', tenant: 't1' });
  expect(one.totals.component_discarded_events_total).to.equal(REFUSED);
  expect(one.totals.component_sent_events_total).to.equal(LINES.length - REFUSED);
  expect(two.objects).to.deep.equal(one.objects);
  expect(two.totals).to.deep.equal(one.totals);
  // the records' memory went back to the workers once the objects' bodies were joined
  expect(two.recycled).to.be.greaterThan(0);
}

describe('object-storage sinks in pipeline threads (docs/threads.md)', function () {
  this.timeout(120_000);

  it('socket -> remap -> cloudw_object_storage (s3rver) writes the objects --threads 1 writes: key prefixes rendered in the worker, failures counted alike', async () => {
    const s3: S3Peer = await startS3([BUCKET]);
    const reader: S3Client = readClient(s3.url);
    try {
      const sink = {
        type: 'cloudw_object_storage',
        bucket: BUCKET,
        endpoint: s3.url,
        region: 'us-east-1',
        auth: { access_key_id: S3RVER_CREDENTIALS.accessKeyId, secret_access_key: S3RVER_CREDENTIALS.secretAccessKey },
      };
      const stored = async (prefix: string) => (await readObjects(reader, prefix)).map((o) => ({ key: o.key, body: o.body }));
      expectSame(await run(1, sink, stored), await run(2, sink, stored));
      // a key of the timestamp alone: plain lines copied into records, the others encoded, one key per piece
      const [one, two] = [await run(1, sink, stored, true), await run(2, sink, stored, true)];
      expect([...one.objects.keys()]).to.deep.equal(['date=D/']);
      expect(one.objects.get('date=D/')).to.have.length(LINES.length);
      expect(one.objects.get('date=D/')).to.deep.include({ message: 'tenant=t1 n=1 say="h\u00e9llo 1"', source_type: 'socket' });
      expect(one.totals.component_sent_events_total).to.equal(LINES.length);
      expect(two.objects).to.deep.equal(one.objects);
      expect(two.totals).to.deep.equal(one.totals);
    } finally {
      reader.destroy();
      await s3.close();
    }
  });

  it('socket -> remap -> cloudg_object_storage (strict peer) writes the objects --threads 1 writes', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'weir-threads-gcs-'));
    const tokens: GoogleTokenPeer = await startGoogleTokenPeer();
    const account = generateServiceAccount();
    tokens.trust(account);
    const gcs: GcsPeer = await startGcs(tokens);
    try {
      const sink = { type: 'cloudg_object_storage', bucket: 'weir-bucket', endpoint: gcs.url, credentials_path: account.writeKeyFile(tmp, tokens.tokenUri) };
      const stored = async (prefix: string) =>
        [...gcs.objects.values()].filter((o) => o.name.startsWith(prefix)).map((o) => ({ key: o.name, body: o.body.toString('utf8') }));
      expectSame(await run(1, sink, stored), await run(2, sink, stored));
    } finally {
      await gcs.close();
      await tokens.close();
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
