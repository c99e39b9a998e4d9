import { expect } from 'chai';
import { connect } from 'node:net';
import { catalog, pipelineWorkerEntry } from '../../../connectors/index.js';
import { configFromObject } from '../../../lib/config/load.js';
import { LogRoot } from '../../../lib/log.js';
import { Topology } from '../../../lib/topology/topology.js';
import { freePort } from '../../helpers/free-port.js';
import { type TestServer, startTestServer } from '../../helpers/http-test-server.js';
import { until } from '../../helpers/wait.js';

const records = (server: TestServer) => server.requests.flatMap((r) => r.body.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>));

describe('tokenizer in pipeline threads (docs/threads.md)', function () {
  this.timeout(120_000);
  let server: TestServer;
  beforeEach(async () => (server = await startTestServer()));
  afterEach(() => server.close());

  it('socket -> tokenizer -> http records what --threads 1 records, conversion errors counted alike', async () => {
    const lines = Array.from({ length: 3_000 }, (_, i) => (i % 50 === 0 ? `host${i} notanumber "quoted path"` : `host${i} ${i} [${i} x]`));
    const results: { records: unknown[]; totals: Record<string, number> }[] = [];
    for (const threads of [1, 2]) {
      server.requests.length = 0;
      const port = await freePort();
      const config = configFromObject(
        {
          sources: { in: { type: 'socket', mode: 'tcp', address: `127.0.0.1:${port}` } },
          transforms: { tok: { type: 'tokenizer', inputs: ['in'], field_names: ['host_name', 'n', 'rest'], types: { n: 'int' } } },
          sinks: { out: { type: 'http', inputs: ['tok'], uri: server.url, encoding: { codec: 'ndjson', except_fields: ['timestamp', 'host', 'port'] }, healthcheck: { enabled: false }, request: { concurrency: 1 } } },
        },
        catalog,
      );
      const topology = new Topology({ log: new LogRoot('error', { write() {} }), threads, workerEntry: pipelineWorkerEntry });
      await topology.start(config);
      expect(topology.threadedSegments).to.equal(threads === 2 ? 1 : 0);
      await new Promise<void>((resolve, reject) => {
        const s = connect(port, '127.0.0.1', () => s.end(lines.join('\n') + '\n', resolve));
        s.on('error', reject);
      });
      await until(() => topology.registry.sum('component_sent_events_total', { component_id: 'out' }) >= lines.length, 60_000, 'every event sent');
      await topology.stop(5000);
      const totals: Record<string, number> = {};
      for (const c of ['component_errors_total', 'processed_events_total', 'component_sent_event_bytes_total']) totals[c] = topology.registry.sum(c, { component_id: 'tok' });
      results.push({ records: records(server), totals });
    }
    expect(results[0]!.records[1]).to.deep.equal({ host_name: 'host1', n: 1, rest: '1 x', source_type: 'socket' });
    expect(results[0]!.totals.component_errors_total).to.equal(60);
    expect(results[1]).to.deep.equal(results[0]);
  });
});
