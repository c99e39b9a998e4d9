import { expect } from 'chai';
import { labelstoreHealthcheck } from '../../../../connectors/sinks/labelstore/sink.js';
import { type TestServer, startTestServer } from '../../../helpers/http-test-server.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { type LokiPeer, startLoki } from '../../../peers/loki.js';
import { lsConfig } from './harness.js';

const ctx = testSinkContext('labelstore');

describe('connectors/sinks/labelstore: health check', () => {
  let loki: LokiPeer | undefined;
  let server: TestServer | undefined;
  afterEach(async () => {
    await loki?.close();
    await server?.close();
    loki = server = undefined;
  });

  it('GET <endpoint>/ready: healthy on 200, failing on 503 with the status in the reason', async () => {
    loki = await startLoki({ ready: false });
    const config = lsConfig(`${loki.url}/`);
    let reason = '';
    await labelstoreHealthcheck(config, ctx).catch((err: Error) => (reason = err.message));
    expect(reason).to.match(/^health check GET http:\/\/127\.0\.0\.1:\d+\/ready answered 503: Ingester not ready/);
    loki.setReady(true);
    await labelstoreHealthcheck(config, ctx);
    expect(loki.requests.map((r) => [r.method, r.path])).to.deep.equal([
      ['GET', '/ready'],
      ['GET', '/ready'],
    ]);
  });

  it('falls back to GET <endpoint>/ when /ready is 404, and sends the credentials', async () => {
    server = await startTestServer((r) => (r.url.endsWith('/ready') ? 404 : 200));
    await labelstoreHealthcheck(lsConfig(`${server.url}/gateway`, { auth: { strategy: 'bearer', token: 't' } }), ctx);
    expect(server.requests.map((r) => [r.method, r.url, r.headers.authorization])).to.deep.equal([
      ['GET', '/gateway/ready', 'Bearer t'],
      ['GET', '/gateway/', 'Bearer t'],
    ]);
  });

  it('the fallback must answer 200 too', async () => {
    server = await startTestServer((r) => (r.url.endsWith('/ready') ? 404 : 204));
    let reason = '';
    await labelstoreHealthcheck(lsConfig(server.url), ctx).catch((err: Error) => (reason = err.message));
    expect(reason).to.match(/GET http:\/\/127\.0\.0\.1:\d+\/ answered 204/);
  });

  it('nothing listening fails the check; healthcheck.enabled = false skips it', async () => {
    server = await startTestServer();
    const url = server.url;
    await server.close();
    server = undefined;
    let failed = false;
    await labelstoreHealthcheck(lsConfig(url), ctx).catch(() => (failed = true));
    expect(failed).to.equal(true);
    await labelstoreHealthcheck(lsConfig(url, { healthcheck: { enabled: false } }), ctx);
  });
});
