import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { from } from 'rxjs';
import { logEvent } from '../../../../lib/event.js';
import { type TestCerts, makeTestCerts } from '../../../helpers/certs.js';
import { type TestServer, startTestServer } from '../../../helpers/http-test-server.js';
import { count, fast, pubsubConfig, runSink } from './harness.js';

describe('connectors/sinks/cloudg_pubsub: tls (an https endpoint)', function () {
  this.timeout(30_000);
  let certs: TestCerts;
  let server: TestServer;
  before(async () => {
    certs = makeTestCerts();
    server = await startTestServer(() => ({ status: 200, body: '{"messageIds":["1"]}' }), { cert: readFileSync(certs.serverCrt), key: readFileSync(certs.serverKey) });
  });
  after(async () => {
    await server.close();
    certs.remove();
  });

  const once = (tls: Record<string, unknown>) => {
    const cfg = fast(pubsubConfig(server.url, 'weir-topic', { tls }), { retry_attempts: 0 });
    return runSink(cfg, from([[logEvent({ message: 'over tls' })]]));
  };

  it('verifies the endpoint against tls.ca_file, refuses it without, and verify_certificate = false skips the check', async () => {
    expect(server.url).to.match(/^https:/);
    expect(count(await once({ ca_file: certs.caCrt }), 'delivered')).to.equal(1);
    expect(count(await once({}), 'errored')).to.equal(1);
    expect(count(await once({ verify_certificate: false }), 'delivered')).to.equal(1);
    expect(server.requests.map((r) => r.url)).to.deep.equal(['/v1/projects/weir-test/topics/weir-topic:publish?key=test-key', '/v1/projects/weir-test/topics/weir-topic:publish?key=test-key']);
  });
});

