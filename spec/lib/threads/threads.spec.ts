import { expect } from 'chai';
import { connect } from 'node:net';
import { catalog, pipelineWorkerEntry } from '../../../connectors/index.js';
import { configFromObject } from '../../../lib/config/load.js';
import { LogRoot } from '../../../lib/log.js';
import { Topology } from '../../../lib/topology/topology.js';
import { freePort } from '../../helpers/free-port.js';
import { type TestServer, startTestServer } from '../../helpers/http-test-server.js';
import { until } from '../../helpers/wait.js';

/** socket(tcp) -> remap -> filter -> http(ndjson): a chain that runs in pipeline workers with threads > 1. */
async function pipeline(threads: number, server: TestServer, extra: Record<string, unknown> = {}) {
  const port = await freePort();
  const config = configFromObject(
    {
      sources: { in: { type: 'socket', mode: 'tcp', address: `127.0.0.1:${port}` } },
      transforms: {
        parse: { type: 'remap', inputs: ['in'], source: '.n = to_int!(.message)\ndel(.timestamp)\ndel(.host)\ndel(.port)' },
        odd: { type: 'filter', inputs: ['parse'], condition: '.n != -1' },
      },
      sinks: { out: { type: 'http', inputs: ['odd'], uri: server.url, encoding: { codec: 'ndjson' }, healthcheck: { enabled: false }, ...extra } },
    },
    catalog,
  );
  const topology = new Topology({ log: new LogRoot('error', { write() {} }), threads, workerEntry: pipelineWorkerEntry });
  await topology.start(config);
  return { topology, port };
}

/** Sends `lines` over one connection, written in uneven chunks so lines straddle reads. */
async function send(port: number, lines: string[]): Promise<void> {
  await until(() => true);
  const text = lines.join('\n') + '\n';
  await new Promise<void>((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => {
      for (let at = 0; at < text.length; at += 7_777) s.write(text.slice(at, at + 7_777));
      s.end(resolve);
    });
    s.on('error', reject);
  });
}

const records = (server: TestServer) => server.requests.flatMap((r) => r.body.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>));
/** Records without what differs between runs (receive time, peer) — events the program failed on keep them. */
const stable = (rs: Record<string, unknown>[]) => rs.map(({ timestamp: _t, host: _h, port: _p, ...rest }) => rest);

describe('pipeline threads (docs/threads.md)', function () {
  this.timeout(120_000);
  let server: TestServer;
  beforeEach(async () => (server = await startTestServer()));
  afterEach(() => server.close());

  // one request at a time: with several in flight the server may see requests complete in any order
  const inOrder = { request: { concurrency: 1 } };

  it('keeps the order of 100,000 numbered lines of one connection with --threads 2, each once', async () => {
    const { topology, port } = await pipeline(2, server, inOrder);
    const n = 100_000;
    await send(
      port,
      Array.from({ length: n }, (_, i) => String(i)),
    );
    await until(() => topology.registry.sum('component_sent_events_total', { component_id: 'out' }) >= n, 60_000, 'every event sent');
    const got = records(server).map((r) => r.n);
    expect(got.length).to.equal(n);
    for (let i = 0; i < n; i++) if (got[i] !== i) expect.fail(`record ${i} is ${String(got[i])}`);
    expect(topology.workerPool?.size).to.equal(2);
    // answers' buffers went back to their workers for later answers, and every record above is intact
    expect(topology.workerPool!.recycled).to.be.greaterThan(0);
    await topology.stop(5000);
  });

  it('records what --threads 1 records: the same records and the same counters per component', async () => {
    const lines = Array.from({ length: 5_000 }, (_, i) => (i % 10 === 0 ? '-1' : i % 97 === 0 ? 'not a number' : String(i)));
    const counters = ['component_received_events_total', 'component_sent_events_total', 'component_received_event_bytes_total', 'component_sent_event_bytes_total', 'component_errors_total', 'component_discarded_events_total'];
    const ids = ['in', 'parse', 'odd', 'out'];
    const results: { records: unknown[]; totals: Record<string, number> }[] = [];
    for (const threads of [1, 2]) {
      server.requests.length = 0;
      const { topology, port } = await pipeline(threads, server, inOrder);
      await send(port, lines);
      const expected = lines.filter((l) => l !== '-1').length;
      await until(() => topology.registry.sum('component_sent_events_total', { component_id: 'out' }) >= expected, 60_000, 'every event sent');
      await topology.stop(5000);
      const totals: Record<string, number> = {};
      for (const id of ids) for (const c of counters) totals[`${id} ${c}`] = topology.registry.sum(c, { component_id: id });
      results.push({ records: stable(records(server)), totals });
      if (threads === 2) expect(topology.workerPool).to.not.equal(undefined);
    }
    expect(results[1]!.records).to.deep.equal(results[0]!.records);
    expect(results[1]!.totals).to.deep.equal(results[0]!.totals);
    // lines that are not numbers fail the program and are dropped by remap (drop_on_error is off: kept unchanged)
    expect(results[0]!.totals['parse component_errors_total']).to.be.greaterThan(0);
    expect(results[0]!.totals['odd component_discarded_events_total']).to.equal(500);
  });

  const lineLimits = [
    { how: 'max_length', options: { max_length: 256 } },
    { how: 'framing.newline_delimited.max_length', options: { framing: { method: 'newline_delimited', newline_delimited: { max_length: 256 } } } },
  ];
  for (const limit of lineLimits) {
    it(`socket -> http without transforms (lines written straight into records) records what --threads 1 records; lines past ${limit.how} discarded`, async () => {
      const kinds = ['plain line %', 'a "quoted" %', 'back\\slash %', 'tab\t%', 'ünïcödé %', 'emoji 🚀 %', '', 'x'.repeat(300), '<%> ~ \x7f'];
      const lines = Array.from({ length: 3_000 }, (_, i) => kinds[i % kinds.length]!.replace('%', String(i)));
      const counters = ['component_received_events_total', 'component_sent_events_total', 'component_received_event_bytes_total', 'component_sent_event_bytes_total', 'component_errors_total'];
      const results: { records: unknown[]; totals: Record<string, number> }[] = [];
      for (const threads of [1, 2]) {
        server.requests.length = 0;
        const port = await freePort();
        const config = configFromObject(
          {
            sources: { in: { type: 'socket', mode: 'tcp', address: `127.0.0.1:${port}`, ...limit.options } },
            sinks: { out: { type: 'http', inputs: ['in'], uri: server.url, encoding: { codec: 'ndjson' }, healthcheck: { enabled: false }, ...inOrder } },
          },
          catalog,
        );
        const topology = new Topology({ log: new LogRoot('error', { write() {} }), threads, workerEntry: pipelineWorkerEntry });
        await topology.start(config);
        await send(port, lines);
        const expected = lines.filter((l) => l.length <= 256).length;
        await until(() => topology.registry.sum('component_sent_events_total', { component_id: 'out' }) >= expected, 60_000, 'every event sent');
        if (threads === 2) expect(topology.workerPool).to.not.equal(undefined);
        await topology.stop(5000);
        const totals: Record<string, number> = {};
        for (const id of ['in', 'out']) for (const c of counters) totals[`${id} ${c}`] = topology.registry.sum(c, { component_id: id });
        results.push({ records: stable(records(server)), totals });
      }
      expect(results[0]!.records.length).to.equal(lines.filter((l) => l.length <= 256).length);
      expect(results[1]!.records).to.deep.equal(results[0]!.records);
      expect(results[1]!.totals).to.deep.equal(results[0]!.totals);
      // the long lines were discarded by the framing limit in both
      expect(results[0]!.totals['in component_errors_total']).to.equal(lines.filter((l) => l.length > 256).length).and.to.be.greaterThan(0);
    });
  }

  it('loses nothing and reorders nothing when a worker dies mid-stream: its pieces are sent again', async () => {
    const { topology, port } = await pipeline(2, server, { ...inOrder, batch: { max_events: 100 } });
    const n = 60_000;
    const sending = send(
      port,
      Array.from({ length: n }, (_, i) => String(i)),
    );
    await until(() => server.requests.length > 0, 30_000, 'the first request');
    const pool = topology.workerPool!;
    await pool.crashOne(0);
    await sending;
    await until(() => topology.registry.sum('component_sent_events_total', { component_id: 'out' }) >= n, 60_000, 'every event sent');
    const got = records(server).map((r) => r.n);
    expect(got.length).to.equal(n);
    for (let i = 0; i < n; i++) if (got[i] !== i) expect.fail(`record ${i} is ${String(got[i])}`);
    expect(pool.started).to.equal(3);
    expect(topology.registry.sum('component_errors_total', { component_id: 'in', error_type: 'worker_failed' })).to.equal(0);
    await topology.stop(5000);
  });

  it('keeps segments on the main thread where a worker cannot run them (disk buffer, fan-out, other sinks)', async () => {
    const port = await freePort();
    const config = configFromObject(
      {
        sources: { in: { type: 'socket', mode: 'tcp', address: `127.0.0.1:${port}` } },
        sinks: {
          a: { type: 'http', inputs: ['in'], uri: server.url, encoding: { codec: 'ndjson' }, healthcheck: { enabled: false } },
          b: { type: 'blackhole', inputs: ['in'], print_interval_secs: 0 },
        },
      },
      catalog,
    );
    const topology = new Topology({ log: new LogRoot('error', { write() {} }), threads: 2, workerEntry: pipelineWorkerEntry });
    await topology.start(config);
    await send(port, ['x', 'y']);
    await until(() => topology.registry.sum('component_sent_events_total', { component_id: 'a' }) >= 2, 30_000, 'events sent');
    expect(topology.workerPool).to.equal(undefined);
    await topology.stop(5000);
  });

  it('rebuilds the segment when a reload changes one of its transforms', async () => {
    const { topology, port } = await pipeline(2, server);
    await send(port, ['1', '2']);
    await until(() => records(server).length >= 2, 30_000, 'first records');
    const config = configFromObject(
      {
        sources: { in: { type: 'socket', mode: 'tcp', address: `127.0.0.1:${port}` } },
        transforms: {
          parse: { type: 'remap', inputs: ['in'], source: '. = {"n": to_int!(.message) * 10}' },
          odd: { type: 'filter', inputs: ['parse'], condition: '.n != -1' },
        },
        sinks: { out: { type: 'http', inputs: ['odd'], uri: server.url, encoding: { codec: 'ndjson' }, healthcheck: { enabled: false } } },
      },
      catalog,
    );
    const changes = await topology.reload(config);
    expect(changes.changed).to.include.members(['parse', 'in']);
    await send(port, ['3']);
    await until(() => records(server).length >= 3, 30_000, 'the record after the reload');
    expect(records(server).map((r) => r.n)).to.deep.equal([1, 2, 30]);
    await topology.stop(5000);
  });
});
