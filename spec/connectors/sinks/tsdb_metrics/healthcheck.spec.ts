import { expect } from 'chai';
import { tsdbMetricsHealthcheck } from '../../../../connectors/sinks/tsdb_metrics/sink.js';
import { type TestServer, startTestServer } from '../../../helpers/http-test-server.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { type Influxdb1, sharedInfluxdb1 } from '../../../peers/influxdb1.js';
import { type Influxdb2Peer, startInfluxdb2 } from '../../../peers/influxdb2.js';
import { tsdbConfig } from './harness.js';

describe('connectors/sinks/tsdb_metrics: health check', () => {
  const ctx = testSinkContext('tsdb_metrics');
  let influx: Influxdb1;
  let peer: Influxdb2Peer;
  let server: TestServer;
  before(async () => {
    influx = await sharedInfluxdb1();
    peer = await startInfluxdb2();
    server = await startTestServer();
  });
  after(async () => {
    await peer.close();
    await server.close();
  });

  it('generation 1: GET /ping on the real InfluxDB 1.x (204) is healthy', async () => {
    await tsdbMetricsHealthcheck(tsdbConfig(influx.url, { database: 'any' }), ctx);
  });

  it('generation 2: GET /health (200), without credentials', async () => {
    await tsdbMetricsHealthcheck(tsdbConfig(peer.url + '/', { org: 'weir', bucket: 'metrics', token: 'weir-token' }), ctx);
    expect(peer.requests.map((r) => [r.method, r.path, r.headers.authorization])).to.deep.equal([['GET', '/health', undefined]]);
  });

  it('any other status is unhealthy, with the status in the reason; it is not retried', async () => {
    for (const [status, extra] of [
      [503, { database: 'd' }],
      [401, { org: 'o', bucket: 'b', token: 't' }],
    ] as const) {
      server.reply = () => status;
      let err: unknown;
      await tsdbMetricsHealthcheck(tsdbConfig(server.url, extra), ctx).catch((e: unknown) => (err = e));
      expect((err as Error).message).to.contain(String(status));
    }
    expect(server.requests.map((r) => r.url)).to.deep.equal(['/ping', '/health']);
  });

  it('healthcheck.enabled = false sends nothing', async () => {
    const n = server.requests.length;
    server.reply = () => 500;
    await tsdbMetricsHealthcheck(tsdbConfig(server.url, { database: 'd', healthcheck: { enabled: false } }), ctx);
    expect(server.requests).to.have.length(n);
  });
});
