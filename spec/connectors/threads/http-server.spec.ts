import { expect } from 'chai';
import { catalog, pipelineWorkerEntry } from '../../../connectors/index.js';
import { configFromObject } from '../../../lib/config/load.js';
import { LogRoot } from '../../../lib/log.js';
import { Topology } from '../../../lib/topology/topology.js';
import { freePort } from '../../helpers/free-port.js';
import { type TestServer, startTestServer } from '../../helpers/http-test-server.js';
import { until } from '../../helpers/wait.js';

/** http_server (ndjson bodies) -> remap -> http(ndjson): runs in pipeline workers with threads > 1. */
async function pipeline(threads: number, server: TestServer, source: Record<string, unknown> = {}, sink: Record<string, unknown> = {}) {
  const port = await freePort();
  const config = configFromObject(
    {
      sources: { in: { type: 'http_server', address: `127.0.0.1:${port}`, decoding: { codec: 'json' }, strict_path: false, headers: ['x-team'], query_parameters: ['shard'], ...source } },
      transforms: { parse: { type: 'remap', inputs: ['in'], source: '.double = to_int!(.n) * 2\ndel(.timestamp)' } },
      sinks: { out: { type: 'http', inputs: ['parse'], uri: server.url, encoding: { codec: 'ndjson' }, healthcheck: { enabled: false }, request: { concurrency: 1 }, ...sink } },
    },
    catalog,
  );
  const topology = new Topology({ log: new LogRoot('error', { write() {} }), threads, workerEntry: pipelineWorkerEntry });
  await topology.start(config);
  return { topology, url: `http://127.0.0.1:${port}` };
}

const post = (url: string, body: string, headers: Record<string, string> = {}) => fetch(url, { method: 'POST', body, headers });
const records = (server: TestServer) => server.requests.flatMap((r) => r.body.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>));
const counters = ['component_received_events_total', 'component_sent_events_total', 'component_received_event_bytes_total', 'component_sent_event_bytes_total', 'component_errors_total'];

describe('http_server in pipeline threads (docs/threads.md)', function () {
  this.timeout(120_000);
  let server: TestServer;
  beforeEach(async () => (server = await startTestServer()));
  afterEach(() => server.close());

  it('records what --threads 1 records: request fields, the same records and counters; a body that does not decode is refused whole', async () => {
    const results: { records: unknown[]; totals: Record<string, number>; statuses: number[] }[] = [];
    for (const threads of [1, 2]) {
      server.requests.length = 0;
      const { topology, url } = await pipeline(threads, server);
      const statuses: number[] = [];
      // one request at a time: the order of records is the order of requests
      for (let r = 0; r < 40; r++) {
        const lines = Array.from({ length: 50 }, (_, i) => JSON.stringify({ n: r * 50 + i, message: `line ${i} ü "q"` }));
        // every tenth request has a line that is not JSON: refused with 400, none of its lines sent
        if (r % 10 === 9) lines[7] = '{not json';
        const res = await post(`${url}/logs/${r}?shard=${r % 3}`, lines.join('\n'), { 'x-team': `t${r}` });
        statuses.push(res.status);
      }
      await until(() => topology.registry.sum('component_sent_events_total', { component_id: 'out' }) >= 36 * 50, 60_000, 'every event sent');
      if (threads === 2) expect(topology.threadedSegments).to.equal(1);
      else expect(topology.threadedSegments).to.equal(0);
      await topology.stop(5000);
      const totals: Record<string, number> = {};
      for (const id of ['in', 'parse', 'out']) for (const c of counters) totals[`${id} ${c}`] = topology.registry.sum(c, { component_id: id });
      results.push({ records: records(server), totals, statuses });
    }
    const [one, two] = results as [(typeof results)[0], (typeof results)[0]];
    expect(one.records.length).to.equal(36 * 50);
    expect(one.records[60]).to.deep.equal({ n: 60, double: 120, message: 'line 10 ü "q"', path: '/logs/1', 'x-team': 't1', shard: '1', source_type: 'http_server' });
    expect(one.statuses.filter((s) => s === 400).length).to.equal(4);
    expect(two.statuses).to.deep.equal(one.statuses);
    expect(two.records).to.deep.equal(one.records);
    expect(two.totals).to.deep.equal(one.totals);
    // each refused body: a decoder error and a bad request
    expect(one.totals['in component_errors_total']).to.equal(8);
  });

  it('with acknowledgements the response waits for delivery: a rejected request answers 400, a delivered one 200', async () => {
    server.reply = (req) => (req.body.includes('"bad"') ? 400 : 200);
    const { topology, url } = await pipeline(2, server, {}, { acknowledgements: { enabled: true }, batch: { max_events: 1, timeout_secs: 0.01 } });
    expect(topology.threadedSegments).to.equal(1);
    const good = await post(url, JSON.stringify({ n: 1 }));
    expect(good.status).to.equal(200);
    expect(server.requests.length).to.equal(1);
    const bad = await post(url, JSON.stringify({ n: 2, message: 'bad' }));
    expect(bad.status).to.equal(400);
    expect(await bad.json()).to.deep.equal({ code: 400, message: 'Contents failed to deliver to sink' });
    await topology.stop(5000);
  });

  it('decodes text bodies (lines as messages) in workers as on the main thread', async () => {
    const results: unknown[][] = [];
    for (const threads of [1, 2]) {
      server.requests.length = 0;
      const port = await freePort();
      const config = configFromObject(
        {
          sources: { in: { type: 'http_server', address: `127.0.0.1:${port}`, host_key: 'peer', strict_path: false } },
          sinks: { out: { type: 'http', inputs: ['in'], uri: server.url, encoding: { codec: 'ndjson', except_fields: ['timestamp'] }, healthcheck: { enabled: false }, request: { concurrency: 1 } } },
        },
        catalog,
      );
      const topology = new Topology({ log: new LogRoot('error', { write() {} }), threads, workerEntry: pipelineWorkerEntry });
      await topology.start(config);
      expect(topology.threadedSegments).to.equal(threads === 2 ? 1 : 0);
      for (let r = 0; r < 10; r++) expect((await post(`http://127.0.0.1:${port}/p${r}`, `plain ${r}\na "quoted" ${r}\nünï ${r}`)).status).to.equal(200);
      await until(() => topology.registry.sum('component_sent_events_total', { component_id: 'out' }) >= 30, 60_000, 'every event sent');
      await topology.stop(5000);
      results.push(records(server));
    }
    expect(results[0]![1]).to.deep.equal({ message: 'a "quoted" 0', path: '/p0', peer: '127.0.0.1', source_type: 'http_server' });
    expect(results[1]).to.deep.equal(results[0]);
  });
});
