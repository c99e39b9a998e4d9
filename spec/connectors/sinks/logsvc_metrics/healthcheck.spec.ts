import { expect } from 'chai';
import { logsvcMetricsHealthcheck } from '../../../../connectors/sinks/logsvc_metrics/sink.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { type TestServer, startTestServer } from '../../../helpers/http-test-server.js';
import { type HumioPeer, startHumio } from '../../../peers/humio.js';
import { TOKEN, logsvcConfig } from './harness.js';

describe('connectors/sinks/logsvc_metrics: health check', () => {
  const ctx = testSinkContext('logsvc_metrics');
  let humio: HumioPeer;
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());
  afterEach(() => humio?.close());
  const failure = (endpoint: string, extra: Record<string, unknown> = {}) =>
    logsvcMetricsHealthcheck(logsvcConfig(endpoint, extra), ctx).then(
      () => undefined,
      (err: unknown) => (err as Error).message,
    );

  it('GET /services/collector/health/1.0 with the token: 200 is healthy', async () => {
    humio = await startHumio();
    expect(await failure(humio.url)).to.equal(undefined);
    expect(humio.requests.map((r) => [r.method, r.path, r.headers.authorization])).to.deep.equal([['GET', '/services/collector/health/1.0', `Splunk ${TOKEN}`]]);
  });

  it('a service without the HEC health path (404) is unhealthy; 400 and 503 are named; never retried', async () => {
    humio = await startHumio({ hecHealth: false });
    expect(await failure(humio.url)).to.contain('answered 404 (unexpected status)');
    expect(humio.requests).to.have.length(1);
    for (const [status, reason] of [
      [400, 'invalid token'],
      [503, 'queues are full'],
    ] as const) {
      server.reply = () => status;
      expect(await failure(server.url)).to.contain(`answered ${status} (${reason})`);
    }
  });

  it('healthcheck.enabled = false sends nothing', async () => {
    humio = await startHumio({ hecHealth: false });
    expect(await failure(humio.url, { healthcheck: { enabled: false } })).to.equal(undefined);
    expect(humio.requests).to.have.length(0);
  });
});
