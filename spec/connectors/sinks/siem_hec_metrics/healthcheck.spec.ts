import { expect } from 'chai';
import { siemHecMetricsHealthcheck } from '../../../../connectors/sinks/siem_hec_metrics/sink.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { type HecPeer, startHec } from '../../../peers/hec.js';
import { TOKEN, siemConfig } from './harness.js';

describe('connectors/sinks/siem_hec_metrics: health check', () => {
  const ctx = testSinkContext('siem_hec_metrics');
  let hec: HecPeer;
  beforeEach(async () => {
    hec = await startHec();
  });
  afterEach(() => hec.close());
  const failure = (extra: Record<string, unknown> = {}, endpoint = hec.url) =>
    siemHecMetricsHealthcheck(siemConfig(endpoint, extra), ctx).then(
      () => undefined,
      (err: unknown) => (err as Error).message,
    );

  it('GET /services/collector/health/1.0 with the token: 200 is healthy', async () => {
    expect(await failure()).to.equal(undefined);
    expect(hec.requests.map((r) => [r.method, r.path, r.headers.authorization])).to.deep.equal([['GET', '/services/collector/health/1.0', `Splunk ${TOKEN}`]]);
  });

  it('503 is "queues are full", 400 an invalid token, anything else unexpected; never retried', async () => {
    hec.setHealthy(false);
    expect(await failure()).to.contain('answered 503 (queues are full)');
    hec.setHealthy(true);
    expect(await failure({ default_token: 'unknown' })).to.contain('answered 400 (invalid token)');
    expect(await failure({}, `${hec.url}/elsewhere`)).to.contain('answered 404 (unexpected status)');
    expect(hec.requests).to.have.length(3);
  });

  it('healthcheck.enabled = false sends nothing', async () => {
    hec.setHealthy(false);
    expect(await failure({ healthcheck: { enabled: false } })).to.equal(undefined);
    expect(hec.requests).to.have.length(0);
  });
});
