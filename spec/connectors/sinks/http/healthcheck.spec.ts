import { expect } from 'chai';
import { httpHealthcheck } from '../../../../connectors/sinks/http/sink.js';
import { type TestServer, startTestServer } from '../../../helpers/http-test-server.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { httpConfig } from './harness.js';

describe('connectors/sinks/http: health check', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer();
  });
  afterEach(() => server.close());
  const ctx = testSinkContext('http');

  it('without healthcheck.uri passes without a request', async () => {
    await httpHealthcheck(httpConfig(server.url), ctx);
    expect(server.requests).to.have.length(0);
  });

  it('HEADs healthcheck.uri with the sink auth and headers of the client; 200 is healthy', async () => {
    await httpHealthcheck(httpConfig(server.url + '/data', { healthcheck: { uri: server.url + '/health' }, auth: { strategy: 'bearer', token: 't' } }), ctx);
    expect(server.requests.map((r) => [r.method, r.url, r.headers.authorization])).to.deep.equal([['HEAD', '/health', 'Bearer t']]);
  });

  it('anything but exactly 200 is unhealthy, and it is not retried', async () => {
    for (const status of [204, 503]) {
      server.reply = () => status;
      let err: unknown;
      await httpHealthcheck(httpConfig(server.url, { healthcheck: { uri: server.url + '/h' } }), ctx).catch((e: unknown) => (err = e));
      expect((err as Error).message).to.contain(String(status));
    }
    expect(server.requests).to.have.length(2);
  });

  it('healthcheck.enabled = false skips it', async () => {
    server.reply = () => 500;
    await httpHealthcheck(httpConfig(server.url, { healthcheck: { enabled: false, uri: server.url + '/h' } }), ctx);
    expect(server.requests).to.have.length(0);
  });
});
